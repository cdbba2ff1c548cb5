//! `interstice report --gantt RUN_DIR`: one run's schedule as a Gantt chart,
//! processors up, time across, from its `jobs.csv`: HPC runs, cloud runs
//! that ended on their own, cloud runs an eviction ended (the runs of
//! `evicted_runs` and a last run killed), and cloud runs stopped at their
//! walltime, each in its colour and outlined, the legend right of the
//! chart, time in hours. It reads a Batsim `_jobs.csv` too (no
//! `kind` column: every job drawn as HPC).

use super::chart;
use super::tables;
use anyhow::{bail, Context};
use interstice_core::ProcSet;
use plotters::prelude::*;
use serde::Deserialize;
use std::path::Path;

/// One row of `jobs.csv`, the columns a Gantt chart needs.
#[derive(Debug, Deserialize)]
struct JobRow {
    submission_time: f64,
    starting_time: Option<f64>,
    finish_time: Option<f64>,
    allocated_resources: Option<String>,
    final_state: String,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    evicted_runs: Option<String>,
}

/// How a run ended, which is its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Hpc,
    Cloud,
    Evicted,
    Walltime,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::Hpc, Kind::Cloud, Kind::Evicted, Kind::Walltime];

    fn label(self) -> &'static str {
        match self {
            Kind::Hpc => "HPC job",
            Kind::Cloud => "cloud job",
            Kind::Evicted => "cloud run ended by an eviction",
            Kind::Walltime => "cloud job stopped at its walltime",
        }
    }

    fn color(self) -> RGBColor {
        match self {
            Kind::Hpc => RGBColor(70, 110, 180),
            Kind::Cloud => RGBColor(60, 170, 90),
            Kind::Evicted => RGBColor(220, 40, 40),
            Kind::Walltime => RGBColor(240, 150, 30),
        }
    }
}

/// A run on some processors: `[start, end)` × each `(lo, hi)` range.
#[derive(Debug)]
struct Run {
    kind: Kind,
    start: f64,
    end: f64,
    ranges: Vec<(u32, u32)>,
}

/// `0-3 8` → [(0, 3), (8, 8)], read as Batsim writes processor sets (core's `ProcSet`).
fn ranges(text: &str) -> Option<Vec<(u32, u32)>> {
    text.parse::<ProcSet>().ok().map(|procs| procs.ranges().to_vec())
}

/// jobs.csv's `evicted_runs`, read by the writer's own rule.
fn evicted_runs(text: &str) -> Option<Vec<Run>> {
    let runs = interstice_batsim::output::parse_evicted_runs(text)?;
    Some(
        runs.into_iter()
            .map(|run| Run {
                kind: Kind::Evicted,
                start: run.start.as_secs_f64(),
                end: run.end.as_secs_f64(),
                ranges: run.procs.ranges().to_vec(),
            })
            .collect(),
    )
}

/// The jobs file of `run`: `run` itself if it is a file, else its
/// `jobs.csv`, else its one Batsim `*_jobs.csv` (`batsim -e DIR/PREFIX`).
fn jobs_file(run: &Path) -> anyhow::Result<std::path::PathBuf> {
    if run.is_file() {
        return Ok(run.to_path_buf());
    }
    let jobs = run.join("jobs.csv");
    if jobs.is_file() {
        return Ok(jobs);
    }
    let batsim: Vec<_> = std::fs::read_dir(run)
        .with_context(|| {
            format!(
                "cannot read {} (a run's directory or its jobs.csv)",
                run.display()
            )
        })?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("_jobs.csv"))
        })
        .collect();
    match batsim.as_slice() {
        [one] => Ok(one.clone()),
        [] => bail!(
            "{} has no jobs.csv (nor a Batsim *_jobs.csv): give a replay's --out, a sweep's \
             runs/run-NNNN kept with --keep-runs, or the jobs file itself",
            run.display()
        ),
        _ => bail!(
            "{} has several Batsim *_jobs.csv: give the one to draw",
            run.display()
        ),
    }
}

/// Every run of every job of `path`, and the first submission.
fn read_runs(path: &Path) -> anyhow::Result<(Vec<Run>, f64)> {
    let rows: Vec<JobRow> = tables::read(path)?;
    let mut runs = Vec::new();
    let mut first = f64::INFINITY;
    for (index, row) in rows.iter().enumerate() {
        // The header is line 1.
        let line = index + 2;
        first = first.min(row.submission_time);
        let cloud = row.kind.as_deref() == Some("cloud");
        if let Some(text) = row.evicted_runs.as_deref() {
            runs.extend(evicted_runs(text).with_context(|| {
                format!(
                    "{}:{line}: evicted_runs {text:?} is not START-END@PROCS;…",
                    path.display()
                )
            })?);
        }
        let (Some(start), Some(end), Some(procs)) =
            (row.starting_time, row.finish_time, &row.allocated_resources)
        else {
            continue;
        };
        let kind = match (cloud, row.final_state.as_str()) {
            (false, _) => Kind::Hpc,
            (true, "COMPLETED_KILLED") => Kind::Evicted,
            (true, "COMPLETED_WALLTIME_REACHED") => Kind::Walltime,
            (true, _) => Kind::Cloud,
        };
        let ranges = ranges(procs).with_context(|| {
            format!(
                "{}:{line}: allocated_resources {procs:?} is not a processor list",
                path.display()
            )
        })?;
        runs.push(Run {
            kind,
            start,
            end,
            ranges,
        });
    }
    Ok((runs, first))
}

/// An instant of jobs.csv as days and time of day since its origin: `6 d 22:40`.
fn clock(seconds: f64) -> String {
    let minutes = (seconds / 60.0).round().max(0.0) as u64;
    format!(
        "{} d {:02}:{:02}",
        minutes / 1440,
        minutes / 60 % 24,
        minutes % 60
    )
}

/// The chart of `run_dir/jobs.csv` between `from` and `to` (seconds, as in
/// jobs.csv; default: the first day from the first submission), as SVG.
/// Returns the SVG and the window drawn.
pub fn svg(run_dir: &Path, from: Option<f64>, to: Option<f64>) -> anyhow::Result<(String, (f64, f64))> {
    let path = jobs_file(run_dir)?;
    let (runs, first) = read_runs(&path)?;
    if runs.is_empty() {
        bail!("{} has no job that ran: nothing to draw", path.display());
    }
    let last = runs.iter().map(|r| r.end).fold(f64::NEG_INFINITY, f64::max);
    let from = from.unwrap_or(first);
    let to = match to {
        Some(to) if to <= from => bail!("--to {to} is not after --from {from}"),
        Some(to) => to,
        None if last <= from => bail!("--from {from}: the run's last job ended at {last:.0} s, before it"),
        None => last.min(from + 86_400.0),
    };
    let shown: Vec<&Run> = runs.iter().filter(|r| r.end > from && r.start < to).collect();
    let procs = runs
        .iter()
        .flat_map(|r| r.ranges.iter().map(|&(_, hi)| hi))
        .max()
        .unwrap_or(0)
        + 1;
    let hours = |t: f64| (t - from) / 3600.0;
    let entries: Vec<(String, RGBAColor)> = Kind::ALL
        .iter()
        .map(|kind| (kind.label().to_string(), kind.color().to_rgba()))
        .collect();
    let legend_width = chart::legend_width(entries.iter().map(|(label, _)| label));
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (1600 + legend_width, 800)).into_drawing_area();
        root.fill(&WHITE).map_err(chart::drawing)?;
        let (plot, legend) = root.split_horizontally(1600);
        let title = format!(
            "{}: {} runs from {} to {} ({} s to {} s)",
            run_dir.display(),
            shown.len(),
            clock(from),
            clock(to),
            chart::tick(from.round()),
            chart::tick(to.round())
        );
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..hours(to), 0.0..f64::from(procs))
            .map_err(chart::drawing)?;
        let format = |v: &f64| chart::tick(*v);
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(format!("hours since {}", clock(from)))
            .y_desc("processor")
            .x_label_formatter(&format)
            .y_label_formatter(&format)
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 14))
            .draw()
            .map_err(chart::drawing)?;
        for kind in Kind::ALL {
            let rectangles: Vec<[(f64, f64); 2]> = shown
                .iter()
                .filter(|r| r.kind == kind)
                .flat_map(|r| {
                    let (x0, x1) = (hours(r.start.max(from)), hours(r.end.min(to)));
                    r.ranges
                        .iter()
                        .map(move |&(lo, hi)| [(x0, f64::from(lo)), (x1, f64::from(hi) + 1.0)])
                })
                .collect();
            let color = kind.color();
            chart
                .draw_series(
                    rectangles
                        .iter()
                        .map(|&corners| Rectangle::new(corners, color.mix(0.85).filled())),
                )
                .map_err(chart::drawing)?;
            // Each job outlined in a darker shade, so neighbours stay apart.
            let outline = RGBColor(color.0 / 2, color.1 / 2, color.2 / 2);
            chart
                .draw_series(
                    rectangles
                        .iter()
                        .map(|&corners| Rectangle::new(corners, outline.stroke_width(1))),
                )
                .map_err(chart::drawing)?;
        }
        chart::legend(&legend, &entries, chart::Swatch::Box)?;
        root.present().map_err(chart::drawing)?;
    }
    Ok((text, (from, to)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_are_days_and_time_of_day() {
        assert_eq!(clock(0.0), "0 d 00:00");
        assert_eq!(clock(600_000.0), "6 d 22:40");
        assert_eq!(clock(-5.0), "0 d 00:00");
    }

    #[test]
    fn processor_lists_and_evicted_runs_are_read() {
        assert_eq!(ranges("0-3 8"), Some(vec![(0, 3), (8, 8)]));
        assert_eq!(ranges("x"), None);
        let runs = evicted_runs("10.000000-20.500000@2-3;30.000000-31.000000@0 5").unwrap();
        assert_eq!(runs.len(), 2);
        assert_eq!(
            (runs[0].start, runs[0].end, runs[0].ranges.clone()),
            (10.0, 20.5, vec![(2, 3)])
        );
        assert_eq!(runs[1].ranges, vec![(0, 0), (5, 5)]);
        assert!(evicted_runs("10-x@1").is_none());
    }
}
