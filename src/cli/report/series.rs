//! The runs gathered into what a figure or a bar chart draws: the keys that
//! order panels, series and points ([`Key`]), the values gathered per point
//! and reduced to mean ± sd ([`Gather`]), the settings that tell runs apart
//! ([`settings`], [`distinct`]) and the prediction metrics both draw. Used by
//! the figures (`figures`) and the bars (`compare`); it uses neither.

use super::chart::{Panel, Point, Series, Unit};
use super::stats::mean_sd;
use super::tables::{Dimension, Run};
use std::collections::BTreeMap;

/// A key that sorts numerically where the text is a number (areas, widths),
/// then by text.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Key(pub f64, pub String);

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then_with(|| self.1.cmp(&other.1))
    }
}

impl Key {
    /// A cloud width: `4`, or a mixture such as `1,2,4` (sorted by its
    /// widest, after the fixed width of that size).
    pub(super) fn width(text: &str) -> Key {
        let widest = text
            .split([',', ':'])
            .filter_map(|part| part.trim().parse::<f64>().ok())
            .fold(0.0, f64::max);
        let mixture = if text.contains([',', ':']) { 0.5 } else { 0.0 };
        Key(widest + mixture, text.to_string())
    }

    /// A setting's value: by its leading number (`0.5w` before `1w`), else
    /// after every number, by its text (`easy` before `fcfs`).
    pub(super) fn text(text: &str) -> Key {
        let end = text
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(text.len());
        let number = text[..end].parse::<f64>().unwrap_or(f64::MAX);
        Key(number, text.to_string())
    }
}

/// A per-run value a panel draws (`None`: undefined in that run).
pub(super) type RunMetric = fn(&Run) -> Option<f64>;

/// Values gathered per panel, series and x (or category), reduced to mean (± sd) points.
#[derive(Default)]
pub(super) struct Gather(BTreeMap<Key, BTreeMap<Key, BTreeMap<Key, Vec<f64>>>>);

impl Gather {
    /// `y` at `x` of a line.
    pub(super) fn add(&mut self, panel: Key, line: Key, x: f64, y: Option<f64>) {
        self.add_at(panel, line, Key(x, String::new()), y);
    }

    /// `y` of a series in a panel, at `x` (a number, or a bar's category).
    pub(super) fn add_at(&mut self, panel: Key, series: Key, x: Key, y: Option<f64>) {
        let values = self
            .0
            .entry(panel)
            .or_default()
            .entry(series)
            .or_default()
            .entry(x)
            .or_default();
        if let Some(y) = y.filter(|y| y.is_finite()) {
            values.push(y);
        }
    }

    /// The line panels, titled by their keys; `with_sd` draws ± one standard deviation.
    pub(super) fn panels(
        self,
        x_label: &str,
        y_label: &str,
        x_log2: bool,
        y_unit: Unit,
        with_sd: bool,
    ) -> Vec<Panel> {
        self.0
            .into_iter()
            .map(|(panel, lines)| Panel {
                title: panel.1,
                x_label: x_label.to_string(),
                y_label: y_label.to_string(),
                x_log2,
                y_unit,
                categories: Vec::new(),
                series: lines
                    .into_iter()
                    .map(|(line, points)| Series {
                        label: line.1,
                        points: points
                            .into_iter()
                            .filter_map(|(x, values)| point(x.0, &values, with_sd))
                            .collect(),
                    })
                    .collect(),
            })
            .collect()
    }

    /// The bar panels, titled by their keys: the categories are the x keys'
    /// texts, in order, and a point's x its category's index; ± one sd.
    pub(super) fn bar_panels(self, x_label: &str) -> Vec<Panel> {
        self.0
            .into_iter()
            .map(|(panel, series)| {
                let mut categories: Vec<&Key> = series.values().flat_map(|points| points.keys()).collect();
                categories.sort();
                categories.dedup();
                let index = |key: &Key| categories.iter().position(|c| *c == key).unwrap_or(0) as f64;
                let series = series
                    .iter()
                    .map(|(label, points)| Series {
                        label: label.1.clone(),
                        points: points
                            .iter()
                            .filter_map(|(x, values)| point(index(x), values, true))
                            .collect(),
                    })
                    .collect();
                Panel {
                    title: panel.1,
                    x_label: x_label.to_string(),
                    y_label: String::new(),
                    x_log2: false,
                    y_unit: Unit::Number,
                    categories: categories.into_iter().map(|c| c.1.clone()).collect(),
                    series,
                }
            })
            .collect()
    }
}

/// The mean (± sd) of `values` at `x`, or none without a value.
fn point(x: f64, values: &[f64], with_sd: bool) -> Option<Point> {
    let (y, sd) = mean_sd(values)?;
    Some(Point {
        x,
        y,
        sd: if with_sd { sd } else { None },
    })
}

/// `label` followed by the run's varying settings, if any.
pub(super) fn line_label(label: String, run: &Run, varying: &[Dimension]) -> String {
    let setting = run.setting(varying);
    if setting.is_empty() {
        label
    } else if label.is_empty() {
        setting
    } else {
        format!("{label} {setting}")
    }
}

/// The settings that tell runs apart besides the area, width and slack: the
/// admitting predictor decides nothing when every run admits all cloud jobs
/// (its runs are one simulation), so it is left out then.
pub(super) fn settings(runs: &[Run]) -> Vec<Dimension> {
    if runs
        .iter()
        .all(|run| run.admission == interstice_core::Admission::AdmitAll.name())
    {
        Dimension::varying(runs, &[Dimension::Predictor])
    } else {
        Dimension::varying(runs, &[])
    }
}

/// The distinct values of `value` among `runs`, in order.
pub(super) fn distinct<T: PartialEq>(runs: &[Run], value: impl Fn(&Run) -> T) -> Vec<T> {
    let mut values: Vec<T> = Vec::new();
    for run in runs {
        let v = value(run);
        if !values.contains(&v) {
            values.push(v);
        }
    }
    values
}

/// A per-run prediction quality value a panel draws.
pub(super) type QualityMetric = fn(&interstice_core::PredictionQuality) -> Option<f64>;

/// The prediction metrics of Fig. 6.7/6.8 (and the bars), with their panel titles.
pub(super) const PREDICTION_METRICS: [(&str, QualityMetric); 4] = [
    ("thesis accuracy (FP+FN)/predicted, lower is better", |q| {
        q.thesis_accuracy
    }),
    ("thesis precision TP/occurred (= the standard recall)", |q| {
        q.thesis_precision
    }),
    ("precision TP/(TP+FP)", |q| q.precision),
    ("Brier score, lower is better", |q| q.brier),
];
