//! The report's figures, chosen by what the sweep varies. With several
//! slacks: the thesis's Fig. 6.2 (violations by slack, a panel per cloud
//! width, a line per area), Fig. 6.4 (a panel per area, a line per width;
//! drawn only when the widths vary, and Fig. 6.2 only when the areas vary or
//! the widths do not, so the two never show the same panels) and Fig.
//! 6.7/6.8 (prediction quality by slack, a line per predictor scored). With
//! several areas: the HPC makespan change by area. With several policies,
//! scheduling modes, admitting predictors (when one decides), admissions,
//! evictions or cloud run times: bars per setting and metric
//! ([`super::compare`]). With service classes: the per-class figure.
//!
//! Each point is the mean over the runs that share it (seeds, and settings no
//! line tells apart). Panels with no defined value, or 0 in every run, are
//! left out and named in the figure's notes; lines with the same points are
//! drawn once, with every label; a figure left with no panel is not drawn,
//! and the report says why.

use super::chart::{Figure, Panel, Series, Unit};
use super::compare;
use super::series::{distinct, line_label, settings, Gather, Key, PREDICTION_METRICS};
use super::stats::THESIS_MAX_AREA;
use super::tables::{ClassRun, Run};

/// A per-class value a panel draws.
type ClassMetric = fn(&ClassRun) -> Option<f64>;

/// True when the areas are spread over powers of two (drawn on a log₂ axis).
fn spread(areas: impl Iterator<Item = u32>) -> bool {
    let (low, high) = areas.fold((u32::MAX, 0), |(low, high), a| (low.min(a), high.max(a)));
    high >= 8 * low.max(1)
}

/// Every figure of the report of `runs` (and `classes`, empty without
/// service classes), and the figures not drawn with why.
pub fn all(runs: &[Run], classes: &[ClassRun]) -> (Vec<Figure>, Vec<String>) {
    let slacks = distinct(runs, |r| r.slack.to_bits());
    let areas = distinct(runs, |r| r.conv);
    let widths = distinct(runs, |r| r.cloud_procs.clone());
    let mut drawn: Vec<Figure> = Vec::new();
    let mut left_out = Vec::new();
    let bars = compare::Bars::of(runs, slacks.len() == 1);
    drawn.extend(bars.metrics(runs));
    if slacks.len() > 1 {
        if areas.len() > 1 || widths.len() == 1 {
            drawn.push(violations(runs, true));
        }
        if widths.len() > 1 {
            drawn.push(violations(runs, false));
        }
        drawn.push(prediction(runs));
    } else {
        drawn.push(bars.prediction(runs));
        left_out.push(format!(
            "Violations and prediction quality by slack (thesis Fig. 6.2, 6.4, 6.7/6.8): every run has slack {}.",
            runs.first().map_or(0.0, |r| r.slack)
        ));
    }
    if areas.len() > 1 {
        drawn.push(makespan(runs));
    } else {
        left_out.push(format!(
            "The HPC makespan change by area: every run has m_conv {}.",
            areas.first().copied().unwrap_or(0)
        ));
    }
    if !classes.is_empty() {
        drawn.push(class_figure(runs, classes, areas.len() > 1));
    }
    let mut figures = Vec::new();
    for figure in drawn {
        match tidy(figure) {
            Ok(figure) => figures.push(figure),
            Err(why) => left_out.push(why),
        }
    }
    (figures, left_out)
}

/// `figure` without its panels that have no defined value or 0 in every
/// run (named in its notes) and with lines of the same points drawn once;
/// why it is not drawn when no panel is left.
fn tidy(mut figure: Figure) -> Result<Figure, String> {
    let (mut undefined, mut zero) = (Vec::new(), Vec::new());
    figure.panels.retain(|panel| {
        let mut points = panel.series.iter().flat_map(|s| s.points.iter()).peekable();
        if points.peek().is_none() {
            undefined.push(panel.title.clone());
            false
        } else if points.all(|p| p.y == 0.0 && p.sd.unwrap_or(0.0) == 0.0) {
            zero.push(panel.title.clone());
            false
        } else {
            true
        }
    });
    for panel in &mut figure.panels {
        panel.series.retain(|s| !s.points.is_empty());
        if panel.categories.is_empty() {
            panel.series = merge_identical(std::mem::take(&mut panel.series));
        }
    }
    let mut kept: Vec<Panel> = Vec::new();
    for panel in std::mem::take(&mut figure.panels) {
        let same = |k: &&mut Panel| {
            k.series == panel.series && k.categories == panel.categories && k.y_unit == panel.y_unit
        };
        match kept.iter_mut().find(same) {
            Some(earlier) => figure.notes.push(format!(
                "{}: the same values as {}, not drawn again.",
                panel.title, earlier.title
            )),
            None => kept.push(panel),
        }
    }
    figure.panels = kept;
    if !zero.is_empty() {
        figure
            .notes
            .push(format!("0 in every run, not drawn: {}.", compact(&zero, "; ")));
    }
    if !undefined.is_empty() {
        figure.notes.push(format!(
            "No defined value, not drawn: {}.",
            compact(&undefined, "; ")
        ));
    }
    if figure.panels.is_empty() {
        return Err(format!("{}: {}", figure.title, figure.notes.join(" ")));
    }
    figure.columns = columns(figure.panels.len(), figure.columns);
    Ok(figure)
}

/// The columns, at most `most`, that lay `panels` out with the fewest rows
/// plus empty places (6 panels: 3 × 2 rather than 4 + 2).
fn columns(panels: usize, most: usize) -> usize {
    (1..=most.max(1))
        .min_by_key(|&columns| {
            let rows = panels.div_ceil(columns);
            (rows + rows * columns - panels, usize::MAX - columns)
        })
        .unwrap_or(1)
}

/// Labels as one, their common first words written once, the rest joined
/// by `separator`: `m_conv = 80, 160, 320`.
fn compact(labels: &[String], separator: &str) -> String {
    let Some(first) = labels.first() else {
        return String::new();
    };
    let mut common = first.len();
    for label in &labels[1..] {
        common = first
            .char_indices()
            .zip(label.chars())
            .find(|((_, a), b)| a != b)
            .map_or(common.min(label.len()), |((index, _), _)| common.min(index));
    }
    // Back to the end of a word, so `m_conv 80` and `m_conv 160` keep `80`.
    let head = first[..common].rfind(' ').map_or(0, |space| space + 1);
    if labels.len() < 2 || head == 0 {
        return labels.join(separator);
    }
    let rest: Vec<&str> = labels.iter().map(|l| &l[head..]).collect();
    format!("{}{}", &first[..head], rest.join(separator))
}

/// Lines with the same points as one line labelled with every label
/// (`m_conv 80, 160, 320` when they share their first word).
fn merge_identical(series: Vec<Series>) -> Vec<Series> {
    let mut merged: Vec<(Series, Vec<String>)> = Vec::new();
    for s in series {
        match merged.iter_mut().find(|(m, _)| m.points == s.points) {
            Some((_, labels)) => labels.push(s.label),
            None => {
                let label = s.label.clone();
                merged.push((s, vec![label]));
            }
        }
    }
    merged
        .into_iter()
        .map(|(mut s, labels)| {
            s.label = compact(&labels, ", ");
            s
        })
        .collect()
}

/// Violation % by slack, a line per combination of the varying settings:
/// `panel_per_width` gives the thesis's Fig. 6.2 (a panel per cloud width, a
/// line per area), otherwise its Fig. 6.4 (a panel per area, a line per width).
fn violations(runs: &[Run], panel_per_width: bool) -> Figure {
    let varying = settings(runs);
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
        panels: gather.panels(
            "slack factor f",
            "violations (% of cloud jobs)",
            false,
            Unit::Percent,
            false,
        ),
        notes: Vec::new(),
    }
}

/// Fig. 6.7/6.8: the thesis's accuracy and precision (the standard recall),
/// and the standard precision and the Brier score by slack, per-run mean ± sd over the runs of areas ≤ 320 whose
/// value is defined, a line per predictor scored (every run scores each over
/// the same cloud jobs) and other varying settings.
fn prediction(runs: &[Run]) -> Figure {
    let varying = settings(runs);
    let mut gather = Gather::default();
    for run in runs.iter().filter(|run| run.conv <= THESIS_MAX_AREA) {
        for (predictor, quality) in run.scored() {
            for (order, (title, metric)) in PREDICTION_METRICS.iter().enumerate() {
                gather.add(
                    Key(order as f64, title.to_string()),
                    Key(0.0, line_label(predictor.to_string(), run, &varying)),
                    run.slack,
                    metric(&quality),
                );
            }
        }
    }
    Figure {
        name: "prediction".to_string(),
        title: format!(
            "Prediction quality by slack, per-run mean ± sd, m_conv ≤ {THESIS_MAX_AREA} (thesis Fig. 6.7/6.8)"
        ),
        columns: 2,
        panels: gather.panels("slack factor f", "per-run value", false, Unit::Number, true),
        notes: Vec::new(),
    }
}

/// The HPC makespan with cloud jobs minus without, by area (mean ± sd over runs).
fn makespan(runs: &[Run]) -> Figure {
    let varying = settings(runs);
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
            "makespan change",
            spread(runs.iter().map(|r| r.conv)),
            Unit::Seconds,
            true,
        ),
        notes: Vec::new(),
    }
}

/// Per class: penalty, mean Gini per window, SLO fulfilment, the availability
/// distribution (mean, 10th percentile) and the mean QoS deficit, by area (a
/// line per class and eviction policy) when the areas vary, else as bars (a
/// group per class, a bar per eviction policy).
fn class_figure(runs: &[Run], classes: &[ClassRun], by_area: bool) -> Figure {
    let metrics: [(&str, Unit, ClassMetric); 6] = [
        ("penalty (slot-hours)", Unit::Number, |c| Some(c.penalty)),
        (
            "Gini of availability, mean over 10-min windows",
            Unit::Number,
            |c| c.gini_mean,
        ),
        ("SLO fulfilment (share of requests)", Unit::Fraction, |c| {
            c.slo_fulfilment
        }),
        ("availability, mean", Unit::Fraction, |c| c.availability_mean),
        ("availability, 10th percentile", Unit::Fraction, |c| {
            c.availability_p10
        }),
        (
            "QoS deficit, mean (SLO − availability, ≥ 0)",
            Unit::Fraction,
            |c| c.mean_deficit,
        ),
    ];
    let setting = super::stats::class_setting(runs);
    let mut gather = Gather::default();
    for class in classes {
        let eviction = class.eviction.as_deref().unwrap_or("-");
        for (order, (title, _, metric)) in metrics.iter().enumerate() {
            let panel = Key(order as f64, title.to_string());
            if by_area {
                let line = format!("{} {eviction} {}", class.class, setting(class.run));
                gather.add(
                    panel,
                    Key(0.0, line.trim_end().to_string()),
                    f64::from(class.conv),
                    metric(class),
                );
            } else {
                let series = format!("{eviction} {}", setting(class.run));
                let category = Key::text(&class.class);
                gather.add_at(
                    panel,
                    Key(0.0, series.trim_end().to_string()),
                    category,
                    metric(class),
                );
            }
        }
    }
    let mut panels = if by_area {
        let log2 = spread(classes.iter().map(|c| c.conv).chain(runs.iter().map(|r| r.conv)));
        gather.panels(
            "convergence area m_conv (processors)",
            "per class",
            log2,
            Unit::Number,
            true,
        )
    } else {
        gather.bar_panels("service class")
    };
    for (panel, (_, unit, _)) in panels.iter_mut().zip(&metrics) {
        panel.y_label = "per class".to_string();
        panel.y_unit = *unit;
    }
    Figure {
        name: "classes".to_string(),
        title: format!(
            "Service classes by {} and eviction policy (mean ± sd over runs)",
            if by_area { "area" } else { "class" }
        ),
        columns: 3,
        panels,
        notes: Vec::new(),
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
    fn labels_are_compacted_to_their_common_first_words() {
        let labels = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            compact(&labels(&["m_conv = 80", "m_conv = 160"]), ", "),
            "m_conv = 80, 160"
        );
        assert_eq!(
            compact(&labels(&["m_conv 80", "m_conv 160"]), ", "),
            "m_conv 80, 160"
        );
        assert_eq!(compact(&labels(&["exact", "thesis"]), ", "), "exact, thesis");
        assert_eq!(compact(&labels(&["m_conv 1", "m_conv 10"]), ", "), "m_conv 1, 10");
        assert_eq!(compact(&labels(&["solo"]), ", "), "solo");
    }

    #[test]
    fn panels_are_laid_out_with_few_empty_places() {
        assert_eq!(columns(6, 4), 3);
        assert_eq!(columns(8, 4), 4);
        assert_eq!(columns(5, 4), 3);
        assert_eq!(columns(2, 3), 2);
        assert_eq!(columns(1, 3), 1);
        assert_eq!(columns(4, 2), 2);
    }

    #[test]
    fn a_point_is_the_mean_of_the_runs_that_share_it_and_undefined_values_are_left_out() {
        let mut gather = Gather::default();
        let (panel, line) = (Key(1.0, "p".into()), Key(0.0, "l".into()));
        gather.add(panel.clone(), line.clone(), 2.0, Some(1.0));
        gather.add(panel.clone(), line.clone(), 2.0, Some(3.0));
        gather.add(panel.clone(), line.clone(), 2.0, None);
        gather.add(panel, line, 5.0, None);
        let panels = gather.panels("x", "y", false, Unit::Number, true);
        let points = &panels[0].series[0].points;
        assert_eq!(points.len(), 1, "x = 5 has no defined value: no point, not a 0");
        assert_eq!((points[0].x, points[0].y), (2.0, 2.0));
        assert!((points[0].sd.unwrap() - 2f64.sqrt()).abs() < 1e-12);
    }
}
