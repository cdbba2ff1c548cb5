//! The sweep's tables as the report reads them: `sweep.csv` (one row per run)
//! and `sweep-classes.csv` (one row per run and service class), by column
//! name, so a column the sweep adds later does not break an older report.
//!
//! The columns are `interstice_batsim::sweep`'s (`SWEEP_CSV_HEADER`,
//! `CLASSES_CSV_HEADER`); an empty cell is an undefined value (`None`), never 0.

use anyhow::Context;
use interstice_core::{PredictionQuality, Predictor};
use serde::Deserialize;
use std::path::Path;

/// One run of a sweep (the columns of `sweep.csv` the report uses).
#[derive(Clone, Debug, Deserialize)]
pub struct Run {
    pub run: u64,
    pub policy: String,
    pub scheduling: String,
    pub predictor: String,
    pub conv: u32,
    pub admission: String,
    pub eviction: Option<String>,
    pub cloud_procs: String,
    pub cloud_runtime: String,
    pub slack: f64,
    pub cloud_jobs: u64,
    pub violations: u64,
    pub violation_percent: Option<f64>,
    pub hpc_makespan_delta: f64,
    /// The columns of the comparison's bars (sweeps before one of them: `None`).
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub evictions: Option<u64>,
    #[serde(default)]
    pub rejected: Option<u64>,
    #[serde(default)]
    pub hpc_makespan: Option<f64>,
    #[serde(default)]
    pub utilization: Option<f64>,
    /// The HPC jobs alone (sweeps before these columns: `None`).
    #[serde(default)]
    pub hpc_mean_wait: Option<f64>,
    #[serde(default)]
    pub hpc_mean_wait_delta: Option<f64>,
    #[serde(default)]
    pub hpc_mean_bounded_slowdown: Option<f64>,
    pub tp: u64,
    pub fp: u64,
    #[serde(rename = "fn")]
    pub fn_: u64,
    pub tn: u64,
    /// Each predictor's counts and Brier score (sweeps before these columns: `None`).
    #[serde(default, rename = "exact.tp")]
    pub exact_tp: Option<u64>,
    #[serde(default, rename = "exact.fp")]
    pub exact_fp: Option<u64>,
    #[serde(default, rename = "exact.fn")]
    pub exact_fn: Option<u64>,
    #[serde(default, rename = "exact.tn")]
    pub exact_tn: Option<u64>,
    #[serde(default, rename = "exact.brier")]
    pub exact_brier: Option<f64>,
    #[serde(default, rename = "thesis.tp")]
    pub thesis_tp: Option<u64>,
    #[serde(default, rename = "thesis.fp")]
    pub thesis_fp: Option<u64>,
    #[serde(default, rename = "thesis.fn")]
    pub thesis_fn: Option<u64>,
    #[serde(default, rename = "thesis.tn")]
    pub thesis_tn: Option<u64>,
    #[serde(default, rename = "thesis.brier")]
    pub thesis_brier: Option<f64>,
    #[serde(default, rename = "learned.tp")]
    pub learned_tp: Option<u64>,
    #[serde(default, rename = "learned.fp")]
    pub learned_fp: Option<u64>,
    #[serde(default, rename = "learned.fn")]
    pub learned_fn: Option<u64>,
    #[serde(default, rename = "learned.tn")]
    pub learned_tn: Option<u64>,
    #[serde(default, rename = "learned.brier")]
    pub learned_brier: Option<f64>,
    /// Each predictor over the foreseeable jobs (sweeps before these columns: `None`).
    #[serde(default, rename = "foreseeable.exact.tp")]
    pub foreseeable_exact_tp: Option<u64>,
    #[serde(default, rename = "foreseeable.exact.fp")]
    pub foreseeable_exact_fp: Option<u64>,
    #[serde(default, rename = "foreseeable.exact.fn")]
    pub foreseeable_exact_fn: Option<u64>,
    #[serde(default, rename = "foreseeable.exact.tn")]
    pub foreseeable_exact_tn: Option<u64>,
    #[serde(default, rename = "foreseeable.exact.brier")]
    pub foreseeable_exact_brier: Option<f64>,
    #[serde(default, rename = "foreseeable.thesis.tp")]
    pub foreseeable_thesis_tp: Option<u64>,
    #[serde(default, rename = "foreseeable.thesis.fp")]
    pub foreseeable_thesis_fp: Option<u64>,
    #[serde(default, rename = "foreseeable.thesis.fn")]
    pub foreseeable_thesis_fn: Option<u64>,
    #[serde(default, rename = "foreseeable.thesis.tn")]
    pub foreseeable_thesis_tn: Option<u64>,
    #[serde(default, rename = "foreseeable.thesis.brier")]
    pub foreseeable_thesis_brier: Option<f64>,
    #[serde(default, rename = "foreseeable.learned.tp")]
    pub foreseeable_learned_tp: Option<u64>,
    #[serde(default, rename = "foreseeable.learned.fp")]
    pub foreseeable_learned_fp: Option<u64>,
    #[serde(default, rename = "foreseeable.learned.fn")]
    pub foreseeable_learned_fn: Option<u64>,
    #[serde(default, rename = "foreseeable.learned.tn")]
    pub foreseeable_learned_tn: Option<u64>,
    #[serde(default, rename = "foreseeable.learned.brier")]
    pub foreseeable_learned_brier: Option<f64>,
}

impl Run {
    /// The run's prediction quality as each predictor scores it: all three
    /// from the per-predictor columns, or only the admitting predictor's in
    /// a sweep written before them.
    pub fn scored(&self) -> Vec<(&'static str, PredictionQuality)> {
        let columns = [
            (
                Predictor::Exact,
                self.exact_tp,
                self.exact_fp,
                self.exact_fn,
                self.exact_tn,
                self.exact_brier,
            ),
            (
                Predictor::Thesis,
                self.thesis_tp,
                self.thesis_fp,
                self.thesis_fn,
                self.thesis_tn,
                self.thesis_brier,
            ),
            (
                Predictor::Learned,
                self.learned_tp,
                self.learned_fp,
                self.learned_fn,
                self.learned_tn,
                self.learned_brier,
            ),
        ];
        let all: Vec<_> = columns
            .into_iter()
            .filter_map(|(predictor, tp, fp, fn_, tn, brier)| {
                Some((
                    predictor.name(),
                    PredictionQuality::from_counts(tp?, fp?, fn_?, tn?, brier),
                ))
            })
            .collect();
        if !all.is_empty() {
            return all;
        }
        let own = self.predictor.parse::<Predictor>().ok();
        own.map(|p| {
            (
                p.name(),
                PredictionQuality::from_counts(self.tp, self.fp, self.fn_, self.tn, None),
            )
        })
        .into_iter()
        .collect()
    }

    /// Each predictor's quality over the foreseeable jobs (without the
    /// violations HPC work submitted after the prediction caused), named
    /// `<predictor> (foreseeable)`; none in a sweep written before them.
    pub fn scored_foreseeable(&self) -> Vec<(&'static str, PredictionQuality)> {
        [
            (
                "exact (foreseeable)",
                self.foreseeable_exact_tp,
                self.foreseeable_exact_fp,
                self.foreseeable_exact_fn,
                self.foreseeable_exact_tn,
                self.foreseeable_exact_brier,
            ),
            (
                "thesis (foreseeable)",
                self.foreseeable_thesis_tp,
                self.foreseeable_thesis_fp,
                self.foreseeable_thesis_fn,
                self.foreseeable_thesis_tn,
                self.foreseeable_thesis_brier,
            ),
            (
                "learned (foreseeable)",
                self.foreseeable_learned_tp,
                self.foreseeable_learned_fp,
                self.foreseeable_learned_fn,
                self.foreseeable_learned_tn,
                self.foreseeable_learned_brier,
            ),
        ]
        .into_iter()
        .filter_map(|(name, tp, fp, fn_, tn, brier)| {
            Some((name, PredictionQuality::from_counts(tp?, fp?, fn_?, tn?, brier)))
        })
        .collect()
    }

    /// The run's settings other than the area, the cloud width, the slack and
    /// the seed, as `name=value` for the dimensions in `varying`.
    pub fn setting(&self, varying: &[Dimension]) -> String {
        varying
            .iter()
            .map(|dimension| format!("{}={}", dimension.name(), dimension.value(self)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// One service class of one run (`sweep-classes.csv`).
#[derive(Clone, Debug, Deserialize)]
pub struct ClassRun {
    pub run: u64,
    pub eviction: Option<String>,
    pub conv: u32,
    pub class: String,
    pub requests: u64,
    pub availability_mean: Option<f64>,
    pub availability_p10: Option<f64>,
    pub availability_min: Option<f64>,
    pub slo_fulfilment: Option<f64>,
    pub mean_deficit: Option<f64>,
    pub penalty: f64,
    pub preemptions: u64,
    pub gini_mean: Option<f64>,
}

/// A setting that may vary between the runs of a sweep besides the area,
/// the cloud width, the slack and the seed: the figures draw one line per
/// combination of the varying ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    Policy,
    Scheduling,
    Predictor,
    Admission,
    Eviction,
    CloudRuntime,
}

impl Dimension {
    pub const ALL: [Dimension; 6] = [
        Dimension::Policy,
        Dimension::Scheduling,
        Dimension::Predictor,
        Dimension::Admission,
        Dimension::Eviction,
        Dimension::CloudRuntime,
    ];

    /// The column's name in `sweep.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Policy => "policy",
            Dimension::Scheduling => "scheduling",
            Dimension::Predictor => "predictor",
            Dimension::Admission => "admission",
            Dimension::Eviction => "eviction",
            Dimension::CloudRuntime => "cloud_runtime",
        }
    }

    /// The run's value of this setting.
    pub fn value(self, run: &Run) -> &str {
        match self {
            Dimension::Policy => &run.policy,
            Dimension::Scheduling => &run.scheduling,
            Dimension::Predictor => &run.predictor,
            Dimension::Admission => &run.admission,
            Dimension::Eviction => run.eviction.as_deref().unwrap_or("-"),
            Dimension::CloudRuntime => &run.cloud_runtime,
        }
    }

    /// The dimensions with more than one value among `runs`, leaving out `except`.
    pub fn varying(runs: &[Run], except: &[Dimension]) -> Vec<Dimension> {
        Dimension::ALL
            .into_iter()
            .filter(|dimension| !except.contains(dimension))
            .filter(|dimension| {
                let first = runs.first().map(|run| dimension.value(run));
                runs.iter().any(|run| Some(dimension.value(run)) != first)
            })
            .collect()
    }
}

/// Read a CSV table of `T` rows; errors name the file, the line and the column.
pub fn read<T: for<'de> Deserialize<'de>>(path: &Path) -> anyhow::Result<Vec<T>> {
    let mut reader = csv::Reader::from_path(path).with_context(|| {
        crate::cli::exit::Unreadable(format!(
            "cannot read {} (is it a sweep's output directory?)",
            path.display()
        ))
    })?;
    let header = reader
        .headers()
        .with_context(|| format!("cannot read the header of {}", path.display()))?
        .clone();
    let mut rows = Vec::new();
    for record in reader.deserialize() {
        let row: T = record.map_err(|err| {
            let line = err.position().map_or(0, |position| position.line());
            let what = match err.kind() {
                csv::ErrorKind::Deserialize { err, .. } => {
                    let column = err
                        .field()
                        .and_then(|field| header.get(field as usize))
                        .map_or_else(String::new, |name| format!("column {name}: "));
                    format!("{column}{}", err.kind())
                }
                _ => err.to_string(),
            };
            anyhow::anyhow!(
                "{}:{line}: {what} (the report reads the tables `interstice sweep` writes; \
                 rerun the sweep with this version if it is older)",
                path.display()
            )
        })?;
        rows.push(row);
    }
    Ok(rows)
}
