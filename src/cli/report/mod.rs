//! `interstice report DIR`: a sweep's results as a self-contained HTML page,
//! PNG and SVG figures of what the sweep varies (bars per policy or other
//! setting and metric; with several slacks the thesis's Fig. 6.2, 6.4,
//! 6.7/6.8; with several areas the HPC makespan change; with service classes
//! the per-class figure: see [`figures`]), the thesis's numbers beside the
//! sweep's in the thesis's own aggregation, and every number of the page in
//! `report.json`.
//!
//! It reads only the sweep's tables ([`tables`]), so a report can be drawn
//! again, elsewhere, without rerunning anything.

mod chart;
mod compare;
mod figures;
mod gantt;
mod html;
mod live;
mod series;
mod stats;
mod study;
mod tables;

use anyhow::Context;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The report's directory under a sweep's, by default.
pub const REPORT_DIR: &str = "report";
/// The page inside the report's directory.
pub const INDEX_HTML: &str = "index.html";
/// Every number of the page.
pub const REPORT_JSON: &str = "report.json";

/// Draw a sweep's report, or one run's Gantt chart.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:\n  interstice sweep KTH.swf.gz … --out out/sweep && \
    interstice report out/sweep   # then open out/sweep/report/index.html\n  \
    interstice replay KTH.swf.gz … --out out/run && interstice report --gantt out/run --from 600000 --to 650000")]
pub struct ReportArgs {
    /// A sweep's output directory (its sweep.csv, and sweep-classes.csv with service classes),
    /// or a `qos study`'s (its study.json: the study's heat maps, penalties and fairness).
    #[arg(
        value_name = "DIR",
        required_unless_present_any = ["gantt", "live"],
        conflicts_with_all = ["gantt", "live"]
    )]
    pub dir: Option<PathBuf>,
    /// Draw one run's Gantt chart instead (gantt.svg and gantt.png): RUN_DIR holds its jobs.csv
    /// (a replay's --out, a sweep's runs/run-NNNN kept with --keep-runs) or a Batsim *_jobs.csv,
    /// or is the jobs file itself.
    #[arg(long, value_name = "RUN_DIR", conflicts_with = "live")]
    pub gantt: Option<PathBuf>,
    /// Draw a live Slurm run's figure instead (live.svg and live.png in LIVE_DIR, from its
    /// live-series.json: scripts/slurm-live.sh, docs/live.md).
    #[arg(long, value_name = "LIVE_DIR")]
    pub live: Option<PathBuf>,
    /// With --gantt: the chart starts at S seconds (jobs.csv's times; default: the first submission).
    #[arg(long, value_name = "S", requires = "gantt", value_parser = crate::cli::engine_args::parse_instant)]
    pub from: Option<f64>,
    /// With --gantt: the chart ends at S seconds (default: a day after --from, or the last end).
    #[arg(long, value_name = "S", requires = "gantt", value_parser = crate::cli::engine_args::parse_instant)]
    pub to: Option<f64>,
    /// Where to write (default: DIR/report; with --gantt, RUN_DIR).
    #[arg(long, value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// No summary line on stdout.
    #[arg(long)]
    pub quiet: bool,
}

/// What the page shows, also written as `report.json`.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The sweep's directory, as given.
    pub source: String,
    pub runs: usize,
    /// The settings (columns) that vary besides area, width, slack and seed.
    pub varying: Vec<&'static str>,
    pub claims: Vec<stats::Claim>,
    /// The thesis's claims about points (area, width, slack) the sweep has no run at.
    pub claims_left_out: Vec<String>,
    pub prediction: Vec<stats::PredictionRow>,
    pub classes: Vec<stats::ClassRow>,
    pub figures: Vec<chart::Figure>,
    /// The figures not drawn, and why (what the sweep does not vary, or no value to draw).
    pub figures_left_out: Vec<String>,
}

impl Report {
    /// The report of a sweep's tables.
    fn of(source: &Path, runs: &[tables::Run], classes: &[tables::ClassRun]) -> Report {
        let prediction = stats::prediction_rows(runs);
        let (claims, claims_left_out) = stats::claims(runs, &prediction);
        let (figures, figures_left_out) = figures::all(runs, classes);
        Report {
            source: source.display().to_string(),
            runs: runs.len(),
            varying: tables::Dimension::varying(runs, &[])
                .into_iter()
                .map(tables::Dimension::name)
                .collect(),
            claims,
            claims_left_out,
            prediction,
            classes: stats::class_rows(runs, classes),
            figures,
            figures_left_out,
        }
    }
}

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// Draw the report of `args.dir`, or the Gantt chart of `args.gantt`.
pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    if let Some(run_dir) = &args.gantt {
        return run_gantt(&args, run_dir);
    }
    if let Some(live_dir) = &args.live {
        let svg = live::draw(live_dir)?;
        if !args.quiet {
            outln!("live run figure: {} and live.png", svg.display())?;
        }
        return Ok(());
    }
    let Some(dir) = &args.dir else {
        anyhow::bail!("give a sweep's directory, --gantt RUN_DIR or --live LIVE_DIR");
    };
    if dir.join(interstice_batsim::study_output::STUDY_JSON).exists() {
        let out = args.out.clone().unwrap_or_else(|| dir.join(REPORT_DIR));
        let (index, figures) = study::draw(dir, &out)?;
        if !args.quiet {
            outln!(
                "report of the QoS study ({figures} figures, PNG and SVG): {}",
                index.display()
            )?;
        }
        return Ok(());
    }
    let sweep_csv = dir.join(crate::cli::sweep::SWEEP_CSV);
    let runs: Vec<tables::Run> = tables::read(&sweep_csv)?;
    if runs.is_empty() {
        anyhow::bail!("{} has no run: nothing to report", sweep_csv.display());
    }
    let classes_csv = dir.join(crate::cli::sweep::SWEEP_CLASSES_CSV);
    let classes: Vec<tables::ClassRun> = if classes_csv.exists() {
        tables::read(&classes_csv)?
    } else {
        Vec::new()
    };
    let report = Report::of(dir, &runs, &classes);

    let out = args.out.clone().unwrap_or_else(|| dir.join(REPORT_DIR));
    let figures_dir = out.join("figures");
    std::fs::create_dir_all(&figures_dir)
        .with_context(|| format!("cannot create {}", figures_dir.display()))?;
    let mut svgs = Vec::with_capacity(report.figures.len());
    for figure in &report.figures {
        let svg = figure.svg()?;
        write(&figures_dir.join(format!("{}.svg", figure.name)), svg.as_bytes())?;
        write(
            &figures_dir.join(format!("{}.png", figure.name)),
            &chart::png(&svg)?,
        )?;
        svgs.push(svg);
    }
    remove_stale_figures(&figures_dir, &report.figures)?;
    let mut json = serde_json::to_string_pretty(&report).context("cannot serialize the report")?;
    json.push('\n');
    write(&out.join(REPORT_JSON), json.as_bytes())?;
    let index = out.join(INDEX_HTML);
    write(&index, html::page(&report, &svgs).as_bytes())?;
    if !args.quiet {
        outln!(
            "report of {} runs ({} figures, PNG and SVG): {}",
            report.runs,
            report.figures.len(),
            index.display()
        )?;
    }
    Ok(())
}

/// Remove the figure files (`*.svg`, `*.png`) of an earlier report that this
/// one does not draw, so the directory holds this report's figures only.
fn remove_stale_figures(dir: &Path, figures: &[chart::Figure]) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    for path in entries.filter_map(|entry| entry.ok().map(|entry| entry.path())) {
        let figure_file = matches!(path.extension().and_then(|e| e.to_str()), Some("svg" | "png"));
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        if figure_file && path.is_file() && !figures.iter().any(|f| f.name == stem) {
            std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    Ok(())
}

/// `report --gantt RUN_DIR`: `gantt.svg` and `gantt.png`.
fn run_gantt(args: &ReportArgs, run_dir: &Path) -> anyhow::Result<()> {
    let (svg, (from, to)) = gantt::svg(run_dir, args.from, args.to)?;
    let out = args.out.clone().unwrap_or_else(|| {
        if run_dir.is_file() {
            run_dir
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
        } else {
            run_dir.to_path_buf()
        }
    });
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let svg_path = out.join("gantt.svg");
    write(&svg_path, svg.as_bytes())?;
    write(&out.join("gantt.png"), &chart::png(&svg)?)?;
    if !args.quiet {
        outln!(
            "Gantt chart of {} from {from:.0} s to {to:.0} s: {} and gantt.png",
            run_dir.display(),
            svg_path.display()
        )?;
    }
    Ok(())
}
