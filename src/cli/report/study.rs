//! `interstice report DIR` on a `qos study` directory (its `study.json`):
//! seed 001's figures — the paired availabilities as heat maps (priority
//! across, QoS-driven up, 5 % squares, the SLO's quadrants with their
//! shares; Fig. 6), the penalty of each policy per infrastructure size with
//! the increase under priority (Fig. 8), and the fairness metrics per
//! contention level and class with their 95 % intervals (Fig. 9) — and a
//! page with the same numbers as tables.

use super::chart::{self, Figure, Panel, Point, Series, Unit};
use anyhow::Context;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// What the report reads of `study.json`.
#[derive(Debug, Deserialize)]
pub struct StudyFile {
    sizes: Vec<SizeEntry>,
}

#[derive(Debug, Deserialize)]
struct SizeEntry {
    size: String,
    penalty: BTreeMap<String, f64>,
    penalty_increase: Option<f64>,
    windows: BTreeMap<String, u64>,
    classes: Vec<ClassEntry>,
    contention: Vec<LevelEntry>,
}

#[derive(Debug, Deserialize)]
struct ClassEntry {
    class: String,
    slo: f64,
    requests: u64,
    quadrants: BTreeMap<String, Option<f64>>,
    squares: Squares,
}

#[derive(Debug, Deserialize)]
struct Squares {
    counts_by_qos_driven_then_priority: Vec<Vec<u64>>,
}

#[derive(Debug, Deserialize)]
struct LevelEntry {
    level: String,
    class: String,
    windows: u64,
    gini: BTreeMap<String, Option<Ci>>,
    min_availability: BTreeMap<String, Option<Ci>>,
    fulfilment: BTreeMap<String, Option<Ci>>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
struct Ci {
    mean: f64,
    ci95: Option<f64>,
}

const POLICIES: [&str; 2] = ["priority", "qos-driven"];
const LEVELS: [&str; 3] = ["low", "medium", "high"];

/// Read `dir/study.json`.
pub fn read(dir: &Path) -> anyhow::Result<StudyFile> {
    let path = dir.join(interstice_batsim::study_output::STUDY_JSON);
    let text = interstice_swf::input_file::read_text(&path, interstice_swf::input_file::MAX_TEXT_BYTES)
        .with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a qos study's summary", path.display()))
}

/// Penalty bars per size, a bar per policy.
fn penalty_figure(study: &StudyFile) -> Figure {
    let series = POLICIES
        .iter()
        .map(|p| Series {
            label: p.to_string(),
            points: study
                .sizes
                .iter()
                .enumerate()
                .map(|(i, s)| Point {
                    x: i as f64,
                    y: s.penalty.get(*p).copied().unwrap_or(f64::NAN),
                    sd: None,
                })
                .collect(),
        })
        .collect();
    let increases: Vec<String> = study
        .sizes
        .iter()
        .map(|s| match s.penalty_increase {
            Some(x) => format!("{} {:+.1} %", s.size, 100.0 * x),
            None => format!("{} undefined (QoS-driven paid nothing)", s.size),
        })
        .collect();
    Figure {
        name: "study-penalty".to_string(),
        title: "Total penalty per infrastructure size (seed 001 Fig. 8)".to_string(),
        columns: 1,
        panels: vec![Panel {
            title: "penalty".to_string(),
            x_label: "infrastructure size".to_string(),
            y_label: "penalty (slot-hours)".to_string(),
            x_log2: false,
            y_unit: Unit::Number,
            categories: study.sizes.iter().map(|s| s.size.clone()).collect(),
            series,
        }],
        notes: vec![format!("increase under priority: {}", increases.join(", "))],
    }
}

/// One panel per metric and contention level: a group per class and size,
/// a bar per policy, error bars the 95 % interval's half-width.
fn contention_figure(study: &StudyFile) -> Option<Figure> {
    type Pick = fn(&LevelEntry) -> &BTreeMap<String, Option<Ci>>;
    let metrics: [(&str, Pick); 3] = [
        ("minimum availability", |l| &l.min_availability),
        ("current SLO fulfilment", |l| &l.fulfilment),
        ("Gini of availabilities", |l| &l.gini),
    ];
    let mut panels = Vec::new();
    for (metric, pick) in metrics {
        for level in LEVELS {
            let entries: Vec<(String, &LevelEntry)> = study
                .sizes
                .iter()
                .flat_map(|s| {
                    s.contention
                        .iter()
                        .filter(|l| l.level == level)
                        .map(move |l| (format!("{} {}", l.class, s.size), l))
                })
                .collect();
            if entries.is_empty() {
                continue;
            }
            let series = POLICIES
                .iter()
                .map(|p| Series {
                    label: p.to_string(),
                    points: entries
                        .iter()
                        .enumerate()
                        .map(|(i, (_, l))| {
                            let ci = pick(l).get(*p).copied().flatten();
                            Point {
                                x: i as f64,
                                y: ci.map_or(f64::NAN, |c| c.mean),
                                sd: ci.and_then(|c| c.ci95),
                            }
                        })
                        .collect(),
                })
                .collect();
            panels.push(Panel {
                title: format!("{metric}, {level} contention"),
                x_label: "class and size".to_string(),
                y_label: metric.to_string(),
                x_log2: false,
                y_unit: Unit::Fraction,
                categories: entries.iter().map(|(name, _)| name.clone()).collect(),
                series,
            });
        }
    }
    (!panels.is_empty()).then(|| Figure {
        name: "study-contention".to_string(),
        title: "Fairness per contention level and class (seed 001 Fig. 9)".to_string(),
        columns: 3,
        panels,
        notes: vec![
            "bars: means over the 10-minute windows of the level; error bars: 95 % confidence intervals"
                .to_string(),
        ],
    })
}

/// Side of one heat map, pixels.
const MAP: u32 = 300;

/// The heat maps: a row per class, a column per size.
fn heat_maps_svg(study: &StudyFile) -> anyhow::Result<String> {
    let classes: Vec<&str> = study
        .sizes
        .first()
        .map(|s| s.classes.iter().map(|c| c.class.as_str()).collect())
        .unwrap_or_default();
    let (rows, columns) = (classes.len().max(1), study.sizes.len().max(1));
    let size = (MAP * columns as u32, 40 + MAP * rows as u32);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        root.fill(&WHITE).map_err(chart::drawing)?;
        let (top, body) = root.split_vertically(40);
        let title = ("sans-serif", 18)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        top.draw_text(
            "Paired availabilities: priority across, QoS-driven up (seed 001 Fig. 6)",
            &title,
            (size.0 as i32 / 2, 10),
        )
        .map_err(chart::drawing)?;
        let areas = body.split_evenly((rows, columns));
        for (r, class) in classes.iter().enumerate() {
            for (c, s) in study.sizes.iter().enumerate() {
                if let Some(entry) = s.classes.iter().find(|e| e.class == *class) {
                    heat_map(&areas[r * columns + c], entry, &s.size)?;
                }
            }
        }
        root.present().map_err(chart::drawing)?;
    }
    Ok(text)
}

fn heat_map<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    e: &ClassEntry,
    size: &str,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("{}, {size} ({} requests)", e.class, e.requests),
            ("sans-serif", 13),
        )
        .margin(8)
        .x_label_area_size(28)
        .y_label_area_size(34)
        .build_cartesian_2d(0.0..100.0, 0.0..100.0)
        .map_err(chart::drawing)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(5)
        .y_labels(5)
        .x_desc("priority (%)")
        .y_desc("QoS-driven (%)")
        .label_style(("sans-serif", 11))
        .draw()
        .map_err(chart::drawing)?;
    let rows = &e.squares.counts_by_qos_driven_then_priority;
    let most = rows.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    for (y, row) in rows.iter().enumerate() {
        for (x, &n) in row.iter().enumerate() {
            if n == 0 {
                continue;
            }
            // Darkness by the logarithm of the count: one request still shows.
            let shade = 0.15 + 0.85 * ((n as f64).ln_1p() / most.ln_1p());
            let grey = (255.0 * (1.0 - shade)) as u8;
            let corner = |i: usize| i as f64 * 5.0;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(corner(x), corner(y)), (corner(x + 1), corner(y + 1))],
                    RGBColor(grey, grey, grey).filled(),
                )))
                .map_err(chart::drawing)?;
        }
    }
    let slo = 100.0 * e.slo;
    let red = RGBColor(200, 40, 40).stroke_width(1);
    chart
        .draw_series([
            PathElement::new(vec![(slo, 0.0), (slo, 100.0)], red),
            PathElement::new(vec![(0.0, slo), (100.0, slo)], red),
            PathElement::new(
                vec![(0.0, 0.0), (100.0, 100.0)],
                RGBColor(120, 120, 120).stroke_width(1),
            ),
        ])
        .map_err(chart::drawing)?;
    let q = |k: &str| {
        e.quadrants
            .get(k)
            .copied()
            .flatten()
            .map_or("–".to_string(), |v| format!("{:.1} %", 100.0 * v))
    };
    let style = ("sans-serif", 11).into_font().color(&RGBColor(200, 40, 40));
    for (label, at) in [
        (q("both"), (60.0, 97.0)),
        (q("qos_driven_only"), (2.0, 97.0)),
        (q("priority_only"), (60.0, 8.0)),
        (q("neither"), (2.0, 8.0)),
    ] {
        chart
            .draw_series(std::iter::once(Text::new(label, at, style.clone())))
            .map_err(chart::drawing)?;
    }
    Ok(())
}

/// Draw the study's figures and page into `out`; returns the page's path.
pub fn draw(dir: &Path, out: &Path) -> anyhow::Result<(std::path::PathBuf, usize)> {
    let study = read(dir)?;
    let figures_dir = out.join("figures");
    std::fs::create_dir_all(&figures_dir)
        .with_context(|| format!("cannot create {}", figures_dir.display()))?;
    let mut svgs = vec![("study-heatmaps".to_string(), heat_maps_svg(&study)?)];
    let mut figures = vec![penalty_figure(&study)];
    figures.extend(contention_figure(&study));
    for f in &figures {
        svgs.push((f.name.clone(), f.svg()?));
    }
    for (name, svg) in &svgs {
        super::write(&figures_dir.join(format!("{name}.svg")), svg.as_bytes())?;
        super::write(&figures_dir.join(format!("{name}.png")), &chart::png(svg)?)?;
    }
    let index = out.join(super::INDEX_HTML);
    super::write(&index, page(dir, &study, &svgs).as_bytes())?;
    Ok((index, svgs.len()))
}

fn pct(v: Option<f64>) -> String {
    v.map_or("–".to_string(), |v| format!("{:.1}", 100.0 * v))
}

fn page(dir: &Path, study: &StudyFile, svgs: &[(String, String)]) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Interstice QoS study: {0}</title>\n\
         <style>body {{ font-family: sans-serif; margin: 2em; max-width: 1800px; }} table {{ border-collapse: collapse; margin: 1em 0; }} \
         th, td {{ border: 1px solid #999; padding: 0.25em 0.5em; }} th {{ background: #eee; }} svg {{ max-width: 100%; height: auto; }}</style>\n\
         </head>\n<body>\n<h1>QoS study</h1>\n<p>Study <code>{0}</code>, drawn by <code>interstice report</code> from study.json \
         (every number is there; requests.csv has each request's pair).</p>\n",
        super::html::escape(&dir.display().to_string())
    );
    out.push_str("<h2>Penalty</h2>\n<table><tr><th>size</th><th>priority</th><th>QoS-driven</th><th>increase under priority</th><th>windows none / low / medium / high</th></tr>\n");
    for s in &study.sizes {
        let w = |k: &str| s.windows.get(k).copied().unwrap_or(0);
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td><td>{} / {} / {} / {}</td></tr>",
            s.size,
            s.penalty.get("priority").copied().unwrap_or(f64::NAN),
            s.penalty.get("qos-driven").copied().unwrap_or(f64::NAN),
            s.penalty_increase
                .map_or("–".to_string(), |x| format!("{:+.1} %", 100.0 * x)),
            w("none"),
            w("low"),
            w("medium"),
            w("high"),
        );
    }
    out.push_str("</table>\n<h2>Paired availabilities (% of the class's requests)</h2>\n<table><tr><th>size</th><th>class</th><th>requests</th><th>both met</th><th>priority only</th><th>QoS-driven only</th><th>neither</th></tr>\n");
    for s in &study.sizes {
        for c in &s.classes {
            let q = |k: &str| pct(c.quadrants.get(k).copied().flatten());
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                s.size,
                c.class,
                c.requests,
                q("both"),
                q("priority_only"),
                q("qos_driven_only"),
                q("neither")
            );
        }
    }
    out.push_str("</table>\n<h2>Fairness by contention level (mean ± 95 % interval)</h2>\n<table><tr><th>size</th><th>level</th><th>class</th><th>windows</th><th>min availability: priority</th><th>QoS-driven</th><th>SLO fulfilment: priority</th><th>QoS-driven</th><th>Gini: priority</th><th>QoS-driven</th></tr>\n");
    let ci = |m: &BTreeMap<String, Option<Ci>>, p: &str| match m.get(p).copied().flatten() {
        Some(c) => match c.ci95 {
            Some(h) => format!("{:.3} ± {:.3}", c.mean, h),
            None => format!("{:.3}", c.mean),
        },
        None => "–".to_string(),
    };
    for s in &study.sizes {
        for l in &s.contention {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                s.size,
                l.level,
                l.class,
                l.windows,
                ci(&l.min_availability, "priority"),
                ci(&l.min_availability, "qos-driven"),
                ci(&l.fulfilment, "priority"),
                ci(&l.fulfilment, "qos-driven"),
                ci(&l.gini, "priority"),
                ci(&l.gini, "qos-driven"),
            );
        }
    }
    out.push_str("</table>\n<h2>Figures</h2>\n");
    for (name, svg) in svgs {
        let _ = writeln!(out, "<div id=\"{name}\">{svg}</div>");
    }
    out.push_str("</body>\n</html>\n");
    out
}
