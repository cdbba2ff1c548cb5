//! Bars for what a sweep compares: a group of bars per value of the first
//! setting that varies (the policy, say), a bar per combination of the
//! others, a panel per metric (mean wait, bounded slowdown, HPC makespan and
//! its change, utilisation, violations, rejections, evictions), and, when
//! every run has one slack (no line by slack to draw), the prediction
//! quality with a bar per predictor scored.
//!
//! The settings are those of `sweep.csv` that vary ([`super::series::settings`]),
//! and with one slack the areas and cloud widths when they vary; each bar is
//! the mean ± sd over its runs (seeds, and what no bar tells apart, which the
//! figure's notes name).

use super::chart::{Figure, Unit};
use super::series::{distinct, settings, Gather, Key, RunMetric, PREDICTION_METRICS};
use super::stats::THESIS_MAX_AREA;
use super::tables::{Dimension, Run};

/// What tells bars apart: a setting, the area or the cloud width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Axis {
    Setting(Dimension),
    Area,
    Width,
}

impl Axis {
    fn name(self) -> &'static str {
        match self {
            Axis::Setting(dimension) => dimension.name(),
            Axis::Area => "m_conv",
            Axis::Width => "h",
        }
    }

    /// The run's value, as a key that sorts numbers as numbers.
    fn key(self, run: &Run) -> Key {
        match self {
            Axis::Setting(dimension) => Key::text(dimension.value(run)),
            Axis::Area => Key(f64::from(run.conv), run.conv.to_string()),
            Axis::Width => Key::width(&run.cloud_procs),
        }
    }
}

/// How a sweep's runs fall into bars.
pub struct Bars {
    /// The first names the groups, the others the bars in a group.
    axes: Vec<Axis>,
    /// What varies among a bar's runs (`slack`, `seed`…).
    averaged: Vec<&'static str>,
}

/// A metric of the comparison: its panel title, axis label, unit and value.
struct Metric {
    title: &'static str,
    y_label: &'static str,
    unit: Unit,
    value: RunMetric,
}

/// The comparison's panels, in order: title, y-axis label, unit, value.
const METRICS: [Metric; 9] = [
    Metric::new("HPC mean wait", "mean wait", Unit::Seconds, |r| r.hpc_mean_wait),
    Metric::new(
        "HPC mean wait change caused by the cloud jobs",
        "with − without",
        Unit::Seconds,
        |r| r.hpc_mean_wait_delta,
    ),
    Metric::new(
        "HPC mean bounded slowdown (10 s bound)",
        "bounded slowdown",
        Unit::Number,
        |r| r.hpc_mean_bounded_slowdown,
    ),
    Metric::new("HPC makespan", "HPC makespan", Unit::Seconds, |r| r.hpc_makespan),
    Metric::new(
        "HPC makespan change caused by the cloud jobs",
        "with − without",
        Unit::Seconds,
        |r| Some(r.hpc_makespan_delta),
    ),
    Metric::new("utilisation", "utilisation", Unit::Fraction, |r| r.utilization),
    Metric::new(
        "response-time violations",
        "% of cloud jobs",
        Unit::Percent,
        |r| r.violation_percent,
    ),
    Metric::new("cloud jobs rejected", "% of cloud jobs", Unit::Percent, |r| {
        let rejected = r.rejected? as f64;
        (r.cloud_jobs > 0).then(|| rejected * 100.0 / r.cloud_jobs as f64)
    }),
    Metric::new("evictions", "evictions", Unit::Number, |r| {
        r.evictions.map(|e| e as f64)
    }),
];

impl Metric {
    /// A panel: its title, y-axis label, unit and value per run.
    const fn new(title: &'static str, y_label: &'static str, unit: Unit, value: RunMetric) -> Metric {
        Metric {
            title,
            y_label,
            unit,
            value,
        }
    }
}

impl Bars {
    /// The bars of `runs`: the settings that vary and, with `one_slack`
    /// (no figure by slack), the areas and widths that vary.
    pub fn of(runs: &[Run], one_slack: bool) -> Bars {
        let mut axes: Vec<Axis> = settings(runs).into_iter().map(Axis::Setting).collect();
        let areas = distinct(runs, |r| r.conv).len() > 1;
        let widths = distinct(runs, |r| r.cloud_procs.clone()).len() > 1;
        if one_slack && areas {
            axes.push(Axis::Area);
        }
        if one_slack && widths {
            axes.push(Axis::Width);
        }
        let mut averaged = Vec::new();
        for (varies, what) in [
            (areas && !one_slack, "areas"),
            (widths && !one_slack, "cloud widths"),
            (distinct(runs, |r| r.slack.to_bits()).len() > 1, "slacks"),
            (distinct(runs, |r| r.seed).len() > 1, "seeds"),
        ] {
            if varies {
                averaged.push(what);
            }
        }
        Bars { axes, averaged }
    }

    /// The group of a run's bar: its value of the first axis ("all runs" without any axis).
    fn group(&self, run: &Run) -> Key {
        self.axes
            .first()
            .map_or_else(|| Key(0.0, "all runs".to_string()), |axis| axis.key(run))
    }

    /// A run's bar in its group: `first`, then its values of the other axes.
    fn series(&self, run: &Run, first: &str) -> Key {
        let rest: Vec<(Key, &str)> = self.axes.iter().skip(1).map(|a| (a.key(run), a.name())).collect();
        let mut parts: Vec<String> = Vec::new();
        if !first.is_empty() {
            parts.push(first.to_string());
        }
        parts.extend(rest.iter().map(|(key, name)| format!("{name}={}", key.1)));
        Key(rest.first().map_or(0.0, |(key, _)| key.0), parts.join(" "))
    }

    /// `policy-eviction`: the axes' names.
    fn names(&self, separator: &str) -> String {
        self.axes
            .iter()
            .map(|a| a.name())
            .collect::<Vec<_>>()
            .join(separator)
    }

    /// What the figure's notes say each bar averages over.
    fn notes(&self) -> Vec<String> {
        if self.averaged.is_empty() {
            return Vec::new();
        }
        let (last, others) = self.averaged.split_last().unwrap_or((&"", &[]));
        let what = match others {
            [] => last.to_string(),
            others => format!("{} and {last}", others.join(", ")),
        };
        vec![format!(
            "Each bar: the mean ± sd over its runs, all {what} of the sweep."
        )]
    }

    /// The metrics of the runs, a group of bars per value of the first axis;
    /// none when nothing is compared.
    pub fn metrics(&self, runs: &[Run]) -> Option<Figure> {
        if self.axes.is_empty() {
            return None;
        }
        let mut gather = Gather::default();
        for run in runs {
            for (order, metric) in METRICS.iter().enumerate() {
                gather.add_at(
                    Key(order as f64, metric.title.to_string()),
                    self.series(run, ""),
                    self.group(run),
                    (metric.value)(run),
                );
            }
        }
        let mut panels = gather.bar_panels(self.axes[0].name());
        for (panel, metric) in panels.iter_mut().zip(&METRICS) {
            panel.y_label = metric.y_label.to_string();
            panel.y_unit = metric.unit;
        }
        Some(Figure {
            name: format!("by-{}", self.names("-")),
            title: format!("Comparison by {}", self.names(" and ")),
            columns: 4,
            panels,
            notes: self.notes(),
        })
    }

    /// Prediction quality (the panels of Fig. 6.7/6.8) over the runs of
    /// areas ≤ 320: a bar per predictor scored in each group.
    pub fn prediction(&self, runs: &[Run]) -> Figure {
        let mut gather = Gather::default();
        for run in runs.iter().filter(|run| run.conv <= THESIS_MAX_AREA) {
            for (predictor, quality) in run.scored() {
                for (order, (title, metric)) in PREDICTION_METRICS.iter().enumerate() {
                    gather.add_at(
                        Key(order as f64, title.to_string()),
                        self.series(run, predictor),
                        self.group(run),
                        metric(&quality),
                    );
                }
            }
        }
        let mut panels = gather.bar_panels(self.axes.first().map_or("", |a| a.name()));
        for panel in &mut panels {
            panel.y_label = "per-run value".to_string();
        }
        let name = if self.axes.is_empty() {
            "prediction".to_string()
        } else {
            format!("prediction-by-{}", self.names("-"))
        };
        Figure {
            name,
            title: format!("Prediction quality, per-run mean ± sd, m_conv ≤ {THESIS_MAX_AREA}: a bar per predictor scored"),
            columns: 2,
            panels,
            notes: self.notes(),
        }
    }
}
