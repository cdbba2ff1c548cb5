//! The columns of `sweep.csv` and `sweep-classes.csv`, and each row's cells
//! (also the objects of `sweep.json`'s `runs`).

use super::Row;
use interstice_core::qos::{self, Eviction};
use interstice_core::{Predictor, PredictorQualities};
use std::fmt::Write as _;

/// The columns of `sweep.csv`.
pub const SWEEP_CSV_HEADER: &str =
    "run,policy,scheduling,reservation_depth,predictor,procs,conv,admission,eviction,cloud_procs,cloud_runtime,slack,seed,\
jobs,cloud_jobs,violations,violation_percent,evictions,rejected,hpc_makespan,hpc_makespan_delta,\
utilization,mean_wait,mean_bounded_slowdown,makespan,hpc_jobs,lost_work,\
tp,fp,fn,tn,precision,recall,accuracy,f1,thesis_accuracy,thesis_precision,brier,\
exact.tp,exact.fp,exact.fn,exact.tn,exact.precision,exact.recall,exact.f1,exact.brier,\
thesis.tp,thesis.fp,thesis.fn,thesis.tn,thesis.precision,thesis.recall,thesis.f1,thesis.brier,\
learned.tp,learned.fp,learned.fn,learned.tn,learned.precision,learned.recall,learned.f1,learned.brier,\
class_requests,preemptions,preemptions_for_capacity,penalty,\
hpc_mean_wait,hpc_mean_wait_delta,hpc_mean_bounded_slowdown,admitted,violation_percent_of_admitted,\
learned.brier_without_hazard,unforeseeable_violations,\
foreseeable.exact.tp,foreseeable.exact.fp,foreseeable.exact.fn,foreseeable.exact.tn,\
foreseeable.exact.precision,foreseeable.exact.recall,foreseeable.exact.f1,foreseeable.exact.brier,\
foreseeable.thesis.tp,foreseeable.thesis.fp,foreseeable.thesis.fn,foreseeable.thesis.tn,\
foreseeable.thesis.precision,foreseeable.thesis.recall,foreseeable.thesis.f1,foreseeable.thesis.brier,\
foreseeable.learned.tp,foreseeable.learned.fp,foreseeable.learned.fn,foreseeable.learned.tn,\
foreseeable.learned.precision,foreseeable.learned.recall,foreseeable.learned.f1,foreseeable.learned.brier,\
wall_seconds";

/// The eight columns of one predictor's quality, `PREFIX.tp` … `PREFIX.brier`.
macro_rules! quality_columns {
    ($prefix:literal) => {
        [
            concat!($prefix, ".tp"),
            concat!($prefix, ".fp"),
            concat!($prefix, ".fn"),
            concat!($prefix, ".tn"),
            concat!($prefix, ".precision"),
            concat!($prefix, ".recall"),
            concat!($prefix, ".f1"),
            concat!($prefix, ".brier"),
        ]
    };
}

/// Each predictor's columns in `sweep.csv`, named as in summary.json's
/// `predictors` (every run scores all three over the same cloud jobs), in
/// the order of `Predictor::ALL`.
const PREDICTOR_COLUMNS: [[&str; 8]; Predictor::ALL.len()] = [
    quality_columns!("exact"),
    quality_columns!("thesis"),
    quality_columns!("learned"),
];

/// The same over the foreseeable cloud jobs (summary.json's
/// `predictors_foreseeable`).
const FORESEEABLE_COLUMNS: [[&str; 8]; Predictor::ALL.len()] = [
    quality_columns!("foreseeable.exact"),
    quality_columns!("foreseeable.thesis"),
    quality_columns!("foreseeable.learned"),
];

/// The columns of `sweep-classes.csv`: one row per run with service classes
/// and class.
pub const CLASSES_CSV_HEADER: &str = "run,eviction,conv,class,slo,requests,completed,availability_mean,\
availability_p10,availability_min,slo_fulfilment,mean_deficit,violations,penalty,preemptions,gini_mean,gini_max";

/// A cell: text, an integer, or a float (`None` or not finite: undefined,
/// empty in CSV and `null` in JSON), a name or a count that may be
/// undefined.
pub(super) enum Cell {
    Text(String),
    Int(u64),
    Float(Option<f64>),
    Name(Option<&'static str>),
    Count(Option<u64>),
}

impl Row<'_> {
    pub(super) fn hpc_makespan_delta(&self) -> f64 {
        self.outcome.summary.hpc_makespan - self.baseline.summary.hpc_makespan
    }

    pub(super) fn cells(&self) -> Vec<(&'static str, Cell)> {
        let summary = &self.outcome.summary;
        let quality = &summary.prediction;
        let classes = self.outcome.classes.as_ref();
        let params = self.params;
        let mut cells = vec![
            ("run", Cell::Int(self.index as u64)),
            ("policy", Cell::Text(params.policy.name().to_string())),
            ("scheduling", Cell::Text(params.scheduling.name().to_string())),
            (
                "reservation_depth",
                Cell::Text(params.reservation_depth.to_string()),
            ),
            ("predictor", Cell::Text(params.predictor.name().to_string())),
            ("procs", Cell::Int(u64::from(self.outcome.procs))),
            ("conv", Cell::Int(u64::from(self.outcome.conv))),
            ("admission", Cell::Text(params.admission.name().to_string())),
            ("eviction", Cell::Name(params.eviction.map(Eviction::name))),
            ("cloud_procs", Cell::Text(params.cloud_procs.to_string())),
            ("cloud_runtime", Cell::Text(params.cloud_runtime.to_string())),
            ("slack", Cell::Float(Some(params.slack))),
            ("seed", Cell::Int(params.seed)),
            ("jobs", Cell::Int(summary.jobs)),
            ("cloud_jobs", Cell::Int(summary.cloud_jobs)),
            ("violations", Cell::Int(summary.violations)),
            ("violation_percent", Cell::Float(summary.violation_percent)),
            ("evictions", Cell::Int(summary.evictions)),
            ("rejected", Cell::Int(summary.rejected)),
            ("hpc_makespan", Cell::Float(Some(summary.hpc_makespan))),
            ("hpc_makespan_delta", Cell::Float(Some(self.hpc_makespan_delta()))),
            ("utilization", Cell::Float(summary.utilization)),
            ("mean_wait", Cell::Float(summary.mean_wait)),
            (
                "mean_bounded_slowdown",
                Cell::Float(summary.mean_bounded_slowdown),
            ),
            ("makespan", Cell::Float(Some(summary.makespan))),
            ("hpc_jobs", Cell::Int(summary.hpc_jobs)),
            ("lost_work", Cell::Float(Some(summary.lost_work))),
            ("tp", Cell::Int(quality.tp)),
            ("fp", Cell::Int(quality.fp)),
            ("fn", Cell::Int(quality.fn_)),
            ("tn", Cell::Int(quality.tn)),
            ("precision", Cell::Float(quality.precision)),
            ("recall", Cell::Float(quality.recall)),
            ("accuracy", Cell::Float(quality.accuracy)),
            ("f1", Cell::Float(quality.f1)),
            ("thesis_accuracy", Cell::Float(quality.thesis_accuracy)),
            ("thesis_precision", Cell::Float(quality.thesis_precision)),
            ("brier", Cell::Float(quality.brier)),
        ];
        quality_cells(&mut cells, &PREDICTOR_COLUMNS, &summary.predictors);
        cells.extend([
            ("class_requests", Cell::Count(classes.map(|c| c.requests as u64))),
            ("preemptions", Cell::Count(classes.map(|c| c.preemptions as u64))),
            (
                "preemptions_for_capacity",
                Cell::Count(classes.map(|c| c.preemptions_for_capacity as u64)),
            ),
            ("penalty", Cell::Float(classes.map(|c| c.penalty))),
            // The HPC jobs alone, and against the run's no-cloud baseline
            // (summary.json's `hpc`); both denominators of the violation rate.
            ("hpc_mean_wait", Cell::Float(summary.hpc_mean_wait)),
            (
                "hpc_mean_wait_delta",
                Cell::Float(
                    summary
                        .hpc_mean_wait
                        .zip(self.baseline.summary.hpc_mean_wait)
                        .map(|(a, b)| a - b),
                ),
            ),
            (
                "hpc_mean_bounded_slowdown",
                Cell::Float(summary.hpc_mean_bounded_slowdown),
            ),
            ("admitted", Cell::Int(summary.admitted())),
            (
                "violation_percent_of_admitted",
                Cell::Float(summary.violation_percent_of_admitted()),
            ),
            (
                "learned.brier_without_hazard",
                Cell::Float(summary.predictors.learned.brier_without_hazard),
            ),
            (
                "unforeseeable_violations",
                Cell::Int(summary.unforeseeable_violations),
            ),
        ]);
        quality_cells(&mut cells, &FORESEEABLE_COLUMNS, &summary.predictors_foreseeable);
        cells.extend([
            // Last: the one column that differs between two runs of a sweep.
            ("wall_seconds", Cell::Float(Some(self.outcome.wall_seconds))),
        ]);
        cells
    }

    /// One row of cells per class, in a run with service classes.
    pub(super) fn class_cells(&self) -> Vec<Vec<(&'static str, Cell)>> {
        let Some(classes) = &self.outcome.classes else {
            return Vec::new();
        };
        classes
            .classes
            .iter()
            .map(|c| {
                let availability =
                    |f: fn(&qos::Distribution) -> f64| Cell::Float(c.availability.as_ref().map(f));
                vec![
                    ("run", Cell::Int(self.index as u64)),
                    ("eviction", Cell::Name(self.params.eviction.map(Eviction::name))),
                    ("conv", Cell::Int(u64::from(self.outcome.conv))),
                    ("class", Cell::Text(c.name.clone())),
                    ("slo", Cell::Float(Some(c.slo))),
                    ("requests", Cell::Int(c.requests as u64)),
                    ("completed", Cell::Int(c.completed as u64)),
                    ("availability_mean", availability(|d| d.mean)),
                    ("availability_p10", availability(|d| d.p10)),
                    ("availability_min", availability(|d| d.min)),
                    ("slo_fulfilment", Cell::Float(c.fulfilment)),
                    ("mean_deficit", Cell::Float(c.mean_deficit)),
                    ("violations", Cell::Int(c.violations as u64)),
                    ("penalty", Cell::Float(Some(c.penalty))),
                    ("preemptions", Cell::Int(c.preemptions)),
                    ("gini_mean", Cell::Float(c.gini_mean)),
                    ("gini_max", Cell::Float(c.gini_max)),
                ]
            })
            .collect()
    }
}

/// A CSV field, quoted when it holds a comma or a quote.
pub(super) fn csv_field(out: &mut String, text: &str) {
    if text.contains([',', '"', '\n']) {
        let _ = write!(out, "\"{}\"", text.replace('"', "\"\""));
    } else {
        out.push_str(text);
    }
}

/// A CSV of `header` and one line per row of cells.
fn csv(header: &str, lines: impl IntoIterator<Item = Vec<(&'static str, Cell)>>) -> String {
    let mut out = String::from(header);
    out.push('\n');
    for cells in lines {
        for (column, (_, cell)) in cells.into_iter().enumerate() {
            if column > 0 {
                out.push(',');
            }
            match cell {
                Cell::Text(text) => csv_field(&mut out, &text),
                Cell::Name(Some(text)) => csv_field(&mut out, text),
                Cell::Int(value) | Cell::Count(Some(value)) => {
                    let _ = write!(out, "{value}");
                }
                Cell::Float(Some(value)) if value.is_finite() => {
                    let _ = write!(out, "{value}");
                }
                Cell::Float(_) | Cell::Name(None) | Cell::Count(None) => {}
            }
        }
        out.push('\n');
    }
    out
}

/// `sweep.csv`: the header and one line per row.
pub fn sweep_csv(rows: &[Row]) -> String {
    csv(SWEEP_CSV_HEADER, rows.iter().map(Row::cells))
}

/// `sweep-classes.csv`: the header and one line per class of each run with
/// service classes.
pub fn classes_csv(rows: &[Row]) -> String {
    csv(CLASSES_CSV_HEADER, rows.iter().flat_map(Row::class_cells))
}

pub(super) fn json_cell(cell: Cell) -> serde_json::Value {
    match cell {
        Cell::Text(text) => text.into(),
        Cell::Name(Some(text)) => text.into(),
        Cell::Int(value) | Cell::Count(Some(value)) => value.into(),
        Cell::Float(Some(value)) if value.is_finite() => value.into(),
        Cell::Float(_) | Cell::Name(None) | Cell::Count(None) => serde_json::Value::Null,
    }
}

pub(super) fn cells_json(cells: Vec<(&'static str, Cell)>) -> serde_json::Value {
    serde_json::Value::Object(
        cells
            .into_iter()
            .map(|(name, cell)| (name.to_string(), json_cell(cell)))
            .collect(),
    )
}

/// Append each predictor's eight quality cells under `columns`.
fn quality_cells(
    cells: &mut Vec<(&'static str, Cell)>,
    columns: &[[&'static str; 8]; Predictor::ALL.len()],
    qualities: &PredictorQualities,
) {
    for (columns, predictor) in columns.iter().zip(Predictor::ALL) {
        let quality = qualities.of(predictor);
        let [tp, fp, fn_, tn, precision, recall, f1, brier] = *columns;
        cells.extend([
            (tp, Cell::Int(quality.tp)),
            (fp, Cell::Int(quality.fp)),
            (fn_, Cell::Int(quality.fn_)),
            (tn, Cell::Int(quality.tn)),
            (precision, Cell::Float(quality.precision)),
            (recall, Cell::Float(quality.recall)),
            (f1, Cell::Float(quality.f1)),
            (brier, Cell::Float(quality.brier)),
        ]);
    }
}
