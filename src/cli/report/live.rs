//! `interstice report --live DIR`: the figure of a live Slurm run
//! (`scripts/slurm-live.sh`, docs/live.md) from its `live-series.json`:
//! CPU utilisation over time without and with cloud jobs, live and in the
//! replay of the same submissions, and the HPC jobs' start delays (with cloud
//! jobs minus without), sorted. Written as `live.svg` and `live.png` beside it.

use super::chart::{Figure, Panel, Point, Series, Unit};
use anyhow::Context;
use serde::Deserialize;
use std::path::Path;

/// The series file the live script writes.
pub const LIVE_SERIES: &str = "live-series.json";

/// What `live-series.json` holds: utilisation per bin of `bin_seconds`, and
/// each HPC job's (submission, start delay) live.
#[derive(Debug, Deserialize)]
struct LiveSeries {
    bin_seconds: f64,
    without: Vec<f64>,
    with: Vec<f64>,
    sim_without: Vec<f64>,
    sim_with: Vec<f64>,
    delays: Vec<(f64, f64)>,
}

fn line(label: &str, bin: f64, values: &[f64]) -> Series {
    Series {
        label: label.to_string(),
        points: values
            .iter()
            .enumerate()
            .map(|(index, &y)| Point {
                x: (index as f64 + 0.5) * bin / 60.0,
                y,
                sd: None,
            })
            .collect(),
    }
}

fn figure(series: &LiveSeries) -> Figure {
    let bin = series.bin_seconds;
    let utilisation = Panel {
        title: "CPU utilisation".to_string(),
        x_label: "minutes into the run".to_string(),
        y_label: "busy CPUs".to_string(),
        x_log2: false,
        y_unit: Unit::Fraction,
        categories: Vec::new(),
        series: vec![
            line("live, HPC only", bin, &series.without),
            line("live, HPC + cloud", bin, &series.with),
            line("replay, HPC only", bin, &series.sim_without),
            line("replay, HPC + cloud", bin, &series.sim_with),
        ],
    };
    let mut delays: Vec<f64> = series.delays.iter().map(|&(_, delay)| delay).collect();
    delays.sort_by(f64::total_cmp);
    let count = delays.len().max(1) as f64;
    let delay = Panel {
        title: "HPC start delay (with cloud jobs − without)".to_string(),
        x_label: "HPC jobs, sorted by delay (%)".to_string(),
        y_label: "delay".to_string(),
        x_log2: false,
        y_unit: Unit::Seconds,
        categories: Vec::new(),
        series: vec![Series {
            label: "live, per HPC job".to_string(),
            points: delays
                .iter()
                .enumerate()
                .map(|(index, &y)| Point {
                    x: 100.0 * (index as f64 + 1.0) / count,
                    y,
                    sd: None,
                })
                .collect(),
        }],
    };
    Figure {
        name: "live".to_string(),
        title: "A real Slurm, the same HPC submissions without and with evictable cloud jobs".to_string(),
        columns: 2,
        panels: vec![utilisation, delay],
        notes: Vec::new(),
    }
}

/// Writes `DIR/live.svg` and `DIR/live.png` from `DIR/live-series.json`; returns the SVG's path.
pub fn draw(dir: &Path) -> anyhow::Result<std::path::PathBuf> {
    let path = dir.join(LIVE_SERIES);
    let text = interstice_swf::input_file::read_text(&path, interstice_swf::input_file::MAX_TEXT_BYTES)
        .with_context(|| {
            format!(
                "cannot read {} (written by scripts/slurm-live.sh)",
                path.display()
            )
        })?;
    let series: LiveSeries = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a live run's series", path.display()))?;
    if !(series.bin_seconds.is_finite() && series.bin_seconds > 0.0) {
        anyhow::bail!("{}: bin_seconds must be a positive number", path.display());
    }
    let svg = figure(&series).svg()?;
    let svg_path = dir.join("live.svg");
    super::write(&svg_path, svg.as_bytes())?;
    super::write(&dir.join("live.png"), &super::chart::png(&svg)?)?;
    Ok(svg_path)
}
