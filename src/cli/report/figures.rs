//! The report's figures, built from the sweep's rows: the thesis's Fig. 6.2
//! (violations by slack, a panel per cloud width, a line per area), Fig. 6.4
//! (a panel per area, a line per width), Fig. 6.7/6.8 (prediction quality by
//! slack, per-run mean ± sd over the thesis's scope), the HPC makespan change,
//! and with service classes the per-class penalty, Gini, SLO fulfilment and
//! availability by area and eviction policy.
//!
//! Each point is the mean over the runs that share it (seeds, and settings no
//! line tells apart); a line per combination of the other settings that vary.

use super::chart::{Figure, Panel, Point, Series};
use super::stats::{mean_sd, THESIS_MAX_AREA};
use super::tables::{ClassRun, Dimension, Run};
use std::collections::BTreeMap;

/// A key that sorts numerically where the text is a number (areas, widths),
/// then by text.
#[derive(Clone, Debug, PartialEq)]
struct Key(f64, String);

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
    fn width(text: &str) -> Key {
        let widest = text
            .split([',', ':'])
            .filter_map(|part| part.trim().parse::<f64>().ok())
            .fold(0.0, f64::max);
        let mixture = if text.contains([',', ':']) { 0.5 } else { 0.0 };
        Key(widest + mixture, text.to_string())
    }
}

/// A per-run value a panel draws (`None`: undefined in that run).
type RunMetric = fn(&Run) -> Option<f64>;
/// A per-class value a panel draws.
type ClassMetric = fn(&ClassRun) -> Option<f64>;

/// Values gathered per panel, line and x, reduced to mean (± sd) points.
#[derive(Default)]
struct Gather(BTreeMap<Key, BTreeMap<Key, BTreeMap<Key, Vec<f64>>>>);

impl Gather {
    fn add(&mut self, panel: Key, line: Key, x: f64, y: Option<f64>) {
        let values = self
            .0
            .entry(panel)
            .or_default()
            .entry(line)
            .or_default()
            .entry(Key(x, String::new()))
            .or_default();
        if let Some(y) = y.filter(|y| y.is_finite()) {
            values.push(y);
        }
    }

    /// The panels, titled by their keys; `with_sd` draws ± one standard deviation.
    fn panels(self, x_label: &str, y_label: &str, x_log2: bool, with_sd: bool) -> Vec<Panel> {
        self.0
            .into_iter()
            .map(|(panel, lines)| Panel {
                title: panel.1,
                x_label: x_label.to_string(),
                y_label: y_label.to_string(),
                x_log2,
                series: lines
                    .into_iter()
                    .map(|(line, points)| Series {
                        label: line.1,
                        points: points
                            .into_iter()
                            .filter_map(|(x, values)| {
                                let (y, sd) = mean_sd(&values)?;
                                Some(Point {
                                    x: x.0,
                                    y,
                                    sd: if with_sd { sd } else { None },
                                })
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect()
    }
}

/// `label` followed by the run's varying settings, if any.
fn line_label(label: String, run: &Run, varying: &[Dimension]) -> String {
    let setting = run.setting(varying);
    if setting.is_empty() {
        label
    } else if label.is_empty() {
        setting
    } else {
        format!("{label} {setting}")
    }
}

/// The settings that tell violation lines apart: the predictor decides
/// nothing when every run admits all cloud jobs, so it is left out then.
fn violation_settings(runs: &[Run]) -> Vec<Dimension> {
    if runs
        .iter()
        .all(|run| run.admission == interstice_core::Admission::AdmitAll.name())
    {
        Dimension::varying(runs, &[Dimension::Predictor])
    } else {
        Dimension::varying(runs, &[])
    }
}

/// True when the areas are spread over powers of two (drawn on a log₂ axis).
fn spread(areas: impl Iterator<Item = u32>) -> bool {
    let (low, high) = areas.fold((u32::MAX, 0), |(low, high), a| (low.min(a), high.max(a)));
    high >= 8 * low.max(1)
}

/// Every figure of the report of `runs` (and `classes`, empty without service classes).
pub fn all(runs: &[Run], classes: &[ClassRun]) -> Vec<Figure> {
    let mut figures = vec![
        violations(runs, true),
        violations(runs, false),
        prediction(runs),
        makespan(runs),
    ];
    if !classes.is_empty() {
        figures.push(class_figure(runs, classes));
    }
    figures
}

/// Violation % by slack, a line per combination of the varying settings:
/// `panel_per_width` gives the thesis's Fig. 6.2 (a panel per cloud width, a
/// line per area), otherwise its Fig. 6.4 (a panel per area, a line per width).
fn violations(runs: &[Run], panel_per_width: bool) -> Figure {
    let varying = violation_settings(runs);
    let mut gather = Gather::default();
    for run in runs {
        let width = Key::width(&run.cloud_procs).0;
        let area = f64::from(run.conv);
        let (panel, line) = if panel_per_width {
            (
                Key(width, format!("cloud jobs of {} processor(s)", run.cloud_procs)),
                Key(area, line_label(format!("m_conv {}", run.conv), run, &varying)),
            )
        } else {
            (
                Key(area, format!("m_conv = {}", run.conv)),
                Key(
                    width,
                    line_label(format!("h = {}", run.cloud_procs), run, &varying),
                ),
            )
        };
        gather.add(panel, line, run.slack, run.violation_percent);
    }
    let (name, title) = if panel_per_width {
        (
            "violations-by-width",
            "Response-time violations by slack (thesis Fig. 6.2)",
        )
    } else {
        (
            "violations-by-area",
            "Response-time violations by area (thesis Fig. 6.4)",
        )
    };
    Figure {
        name: name.to_string(),
        title: title.to_string(),
        columns: 3,
        panels: gather.panels("slack factor f", "violations (% of cloud jobs)", false, false),
    }
}

/// Fig. 6.7/6.8: the thesis's accuracy and precision and the standard precision
/// and recall by slack, per-run mean ± sd over the runs of areas ≤ 320 whose
/// value is defined, a line per predictor (and other varying settings).
fn prediction(runs: &[Run]) -> Figure {
    let varying = Dimension::varying(runs, &[Dimension::Predictor]);
    let metrics: [(&str, RunMetric); 4] = [
        ("thesis accuracy (FP+FN)/predicted, lower is better", |r| {
            r.thesis_accuracy
        }),
        ("thesis precision TP/occurred (= recall)", |r| r.thesis_precision),
        ("precision TP/(TP+FP)", |r| r.precision),
        ("recall TP/(TP+FN)", |r| r.recall),
    ];
    let mut gather = Gather::default();
    for run in runs.iter().filter(|run| run.conv <= THESIS_MAX_AREA) {
        for (order, (title, metric)) in metrics.iter().enumerate() {
            gather.add(
                Key(order as f64, title.to_string()),
                Key(0.0, line_label(run.predictor.clone(), run, &varying)),
                run.slack,
                metric(run),
            );
        }
    }
    Figure {
        name: "prediction".to_string(),
        title: format!(
            "Prediction quality by slack, per-run mean ± sd, m_conv ≤ {THESIS_MAX_AREA} (thesis Fig. 6.7/6.8)"
        ),
        columns: 2,
        panels: gather.panels("slack factor f", "per-run value", false, true),
    }
}

/// The HPC makespan with cloud jobs minus without, by area (mean ± sd over runs).
fn makespan(runs: &[Run]) -> Figure {
    let varying = Dimension::varying(runs, &[]);
    let mut gather = Gather::default();
    for run in runs {
        gather.add(
            Key(0.0, "HPC makespan with cloud jobs − without".to_string()),
            Key(0.0, line_label(String::new(), run, &varying)),
            f64::from(run.conv),
            Some(run.hpc_makespan_delta),
        );
    }
    Figure {
        name: "hpc-makespan".to_string(),
        title: "HPC makespan change caused by the cloud jobs (thesis §6.8.3)".to_string(),
        columns: 1,
        panels: gather.panels(
            "convergence area m_conv (processors)",
            "makespan delta (s)",
            spread(runs.iter().map(|r| r.conv)),
            true,
        ),
    }
}

/// Per class: penalty, mean Gini per window, SLO fulfilment, the availability
/// distribution (mean, 10th percentile) and the mean QoS deficit by area, a
/// line per class and eviction policy.
fn class_figure(runs: &[Run], classes: &[ClassRun]) -> Figure {
    let metrics: [(&str, ClassMetric); 6] = [
        ("penalty (slot-hours)", |c| Some(c.penalty)),
        ("Gini of availability, mean over 10-min windows", |c| c.gini_mean),
        ("SLO fulfilment (share of requests)", |c| c.slo_fulfilment),
        ("availability, mean", |c| c.availability_mean),
        ("availability, 10th percentile", |c| c.availability_p10),
        ("QoS deficit, mean (SLO − availability, ≥ 0)", |c| {
            c.mean_deficit
        }),
    ];
    let setting = super::stats::class_setting(runs);
    let mut gather = Gather::default();
    for class in classes {
        let eviction = class.eviction.as_deref().unwrap_or("-");
        let line = format!("{} {eviction} {}", class.class, setting(class.run));
        for (order, (title, metric)) in metrics.iter().enumerate() {
            gather.add(
                Key(order as f64, title.to_string()),
                Key(0.0, line.trim_end().to_string()),
                f64::from(class.conv),
                metric(class),
            );
        }
    }
    let log2 = spread(classes.iter().map(|c| c.conv).chain(runs.iter().map(|r| r.conv)));
    Figure {
        name: "classes".to_string(),
        title: "Service classes by area and eviction policy (mean ± sd over runs)".to_string(),
        columns: 3,
        panels: gather.panels("convergence area m_conv (processors)", "per class", log2, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_sort_by_their_widest_processor_count() {
        let mut keys = [
            Key::width("4"),
            Key::width("1,2,4"),
            Key::width("1"),
            Key::width("2"),
        ];
        keys.sort();
        let order: Vec<_> = keys.iter().map(|k| k.1.as_str()).collect();
        assert_eq!(order, ["1", "2", "4", "1,2,4"]);
    }

    #[test]
    fn a_point_is_the_mean_of_the_runs_that_share_it_and_undefined_values_are_left_out() {
        let mut gather = Gather::default();
        let (panel, line) = (Key(1.0, "p".into()), Key(0.0, "l".into()));
        gather.add(panel.clone(), line.clone(), 2.0, Some(1.0));
        gather.add(panel.clone(), line.clone(), 2.0, Some(3.0));
        gather.add(panel.clone(), line.clone(), 2.0, None);
        gather.add(panel, line, 5.0, None);
        let panels = gather.panels("x", "y", false, true);
        let points = &panels[0].series[0].points;
        assert_eq!(points.len(), 1, "x = 5 has no defined value: no point, not a 0");
        assert_eq!((points[0].x, points[0].y), (2.0, 2.0));
        assert!((points[0].sd.unwrap() - 2f64.sqrt()).abs() < 1e-12);
    }
}
