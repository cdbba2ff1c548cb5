//! `interstice replay`: simulate a whole workload (SWF or Batsim JSON), with
//! injected cloud jobs, on one machine with the built-in simulator, and write
//! `jobs.csv` + `summary.json`. Also `interstice bench replay`, the
//! thesis-size scenario.
//!
//! Jobs end as in Batsim with `delay` profiles: a job whose run time is below
//! its walltime completes (`COMPLETED_SUCCESSFULLY`); one whose run time is
//! equal to or above it is killed at the walltime (`COMPLETED_WALLTIME_REACHED`).

use super::engine_args::{parse_policy, parse_procs_choice, parse_runtime, parse_seconds, EngineArgs};
use super::experiment_args::{CloudArgs, TraceArgs};
use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use interstice_batsim::output::{self, JOBS_CSV, SUMMARY_JSON};
use interstice_batsim::protocol::EngineOptions;
use interstice_batsim::sim::synthetic::{hpc_workload, SyntheticOptions};
use interstice_batsim::sim::{simulate, simulate_stream, SimOptions, SimStats};
use interstice_core::{EngineConfig, Job, JobKind, Policy, Predictor, Shown, Summary, SummaryTally, Time};
use interstice_swf::defaults;
use interstice_swf::experiment::{clip_jobs, first_injected_id, injection_span};
use interstice_swf::inject::RuntimeSpec;
use interstice_swf::{
    arrivals, load_trace, stream_trace, ClipTarget, CloudSpec, ExtractOptions, ExtractStats, Interrupted,
    LoadedTrace, StreamedTrace, TraceSpec,
};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Simulate a whole workload with the engine, no outside simulator.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Jobs end as in Batsim (delay profiles): a job whose run time is not below its walltime is \
    killed at the walltime (COMPLETED_WALLTIME_REACHED); a job without walltime (SWF: no requested \
    time; Batsim: -1) runs its whole run time.\n\n\
    Example: interstice replay KTH-SP2.swf.gz --policy convergence --conv 10 --cloud-interval 10 \
    --cloud-procs 1,2,4 --cloud-runtime 0.1w --slack 2 --out results/"
)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["workload", "datacenter"])))]
// The injected cloud jobs' shape means nothing without their interval: given
// alone, it is a usage error naming --cloud-interval, not ignored.
#[command(group(
    clap::ArgGroup::new("cloud_shape")
        .args(["cloud_procs", "cloud_walltime", "cloud_runtime", "slack", "alpha", "seed"])
        .multiple(true)
        .requires("cloud_interval")
))]
pub struct ReplayArgs {
    /// The HPC trace.
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Replay a data center instead of one machine: several HPC clusters (each with its own trace,
    /// area and policy), cloud platforms and cloud-job streams, described in FILE (YAML; see
    /// examples/datacenter.yaml and docs/datacenter.md). Only --out, --no-jobs-csv, --quiet,
    /// --route, --placement and --placement-weights (over the file's) apply with it.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["workload", "policy", "cloud_interval", "cloud_shape"])]
    pub datacenter: Option<PathBuf>,
    /// With --datacenter: send every cloud job to this scheduler instead of the one F^J' picks
    /// (`best`, the default, or a scheduler's name): the baseline F^J' is compared with.
    #[arg(long, value_name = "NAME", requires = "datacenter")]
    pub route: Option<String>,
    /// Engine options (--policy is required).
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Inject one cloud job every S seconds over the HPC trace's span (no injection without it).
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub cloud_interval: Option<f64>,
    /// The injected cloud jobs.
    #[command(flatten)]
    pub cloud: CloudArgs,
    /// Service classes for the injected cloud jobs.
    #[command(flatten)]
    pub classes: super::qos::ClassArgs,
    /// Output directory (jobs.csv, summary.json): new or empty, or any with --force.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Write into a non-empty --out DIR, overwriting the files of the same names (without it a
    /// non-empty DIR is refused).
    #[arg(long)]
    pub force: bool,
    /// Write only summary.json, no per-job jobs.csv.
    #[arg(long)]
    pub no_jobs_csv: bool,
    /// No progress bar and no summary on stdout.
    #[arg(long)]
    pub quiet: bool,
}

/// The workload Batsim calls `w0`.
pub(crate) const WORKLOAD_NAME: &str = "w0";

/// The `"run"` object of `summary.json`: what was replayed and how.
pub(crate) fn run_info(
    spec: &TraceSpec,
    extraction: &ExtractStats,
    cloud: Option<&CloudSpec>,
    stats: &SimStats,
) -> serde_json::Value {
    serde_json::json!({
        "workload": spec.workload.display().to_string(),
        "from": spec.from,
        "until": spec.until,
        "repeat": spec.repeat,
        "walltime_factor": spec.walltime_factor,
        "clip": spec.clip.map(ClipTarget::name),
        "cloud": cloud.map(CloudSpec::to_json),
        "extraction": {
            "records": extraction.records,
            "jobs": extraction.jobs,
            "skipped": extraction.skipped(),
            "skipped_by_reason": {
                "no_submit": extraction.skipped_no_submit,
                "runtime": extraction.skipped_runtime,
                "procs": extraction.skipped_procs,
                "too_wide": extraction.skipped_too_wide,
                "out_of_range": extraction.skipped_out_of_range,
                "duplicate_id": extraction.skipped_duplicate_id,
                "bad_lines": extraction.bad_lines,
            },
            "clipped": extraction.clipped,
        },
        "never_started": stats.never_started,
    })
}

/// Run a replay.
pub fn run(args: ReplayArgs) -> anyhow::Result<()> {
    let out = args.out.clone();
    super::flags::with_out_dir(Some(&out), args.force, || run_checked(args))
}

/// [`run`] once `--out` is known usable.
fn run_checked(args: ReplayArgs) -> anyhow::Result<()> {
    if let Some(file) = &args.datacenter {
        return super::datacenter::run(
            file,
            args.route.as_deref(),
            (args.engine.placement, args.engine.placement_weights),
            &args.out,
            !args.no_jobs_csv,
            args.quiet,
        );
    }
    let started = Instant::now();
    if args.engine.policy.is_none() {
        return Err(super::flags::Usage(
            "--policy is required: fcfs, easy, conservative, convergence or cars".to_string(),
        )
        .into());
    }
    let spec = args.trace.spec(args.engine.conv);
    let cloud = args.cloud_interval.map(|interval| args.cloud.spec(interval));
    let bar = progress_bar(args.quiet);
    let jobs_csv = !args.no_jobs_csv;
    let (done, area) = if args.classes.enabled() {
        super::qos::check_replay(&args.engine)?;
        let (done, area) = super::qos::replay_area(
            &spec,
            &args.engine,
            cloud.as_ref(),
            &args.classes,
            &args.out,
            jobs_csv,
            &bar,
        )?;
        (done, Some(area))
    } else {
        (
            replay(&spec, &args.engine, cloud.as_ref(), &args.out, jobs_csv, &bar)?,
            None,
        )
    };
    bar.finish_and_clear();
    if !args.quiet {
        print_summary(&done, &args.out, jobs_csv, started.elapsed().as_secs_f64())?;
        if let Some(area) = &area {
            if jobs_csv {
                outln!(
                    "{} cloud jobs scheduled with service classes: wrote {} and {}",
                    area.outcome.records.len(),
                    args.out
                        .join(interstice_batsim::qos_output::REQUESTS_CSV)
                        .display(),
                    args.out
                        .join(interstice_batsim::qos_output::WINDOWS_CSV)
                        .display()
                )?;
            }
            super::qos::print_classes(&area.config, &area.outcome)?;
        }
        if done.skipped > 0 {
            eprintln!(
                "note: {} workload records were skipped (see summary.json run.extraction)",
                done.skipped
            );
        }
    }
    Ok(())
}

/// What one [`replay`] did.
pub(crate) struct Replayed {
    /// The run's summary, as written to `summary.json`.
    pub summary: Summary,
    /// The same run's summary without its cloud jobs, when it had some and
    /// it was computed.
    pub without_cloud: Option<Summary>,
    /// The engine config it ran with.
    pub config: EngineConfig,
    /// The simulator's loop counters.
    pub stats: SimStats,
    /// Jobs replayed: the trace's (after `--until`/`--repeat`) and the injected cloud jobs.
    pub jobs: u64,
    /// Workload records the loader skipped.
    pub skipped: u64,
    /// Seconds spent preparing `out`, loading the trace and building the engine config.
    pub load_seconds: f64,
}

/// The whole path of `interstice replay` after argument parsing: prepare
/// `out`, load (cut, repeat, clip) the trace of `spec`, merge in the cloud
/// jobs of `cloud`, simulate under `engine` (whose policy must be set) and
/// write `jobs.csv` (unless not `jobs_csv`) + `summary.json` into `out` as jobs end. `bar` gets the
/// number of jobs and follows the submissions. The benchmarks that time what
/// a user runs (`bench hpc`) call this, not a copy of it.
pub(crate) fn replay(
    spec: &TraceSpec,
    engine: &EngineArgs,
    cloud: Option<&CloudSpec>,
    out: &Path,
    jobs_csv: bool,
    bar: &ProgressBar,
) -> anyhow::Result<Replayed> {
    let started = Instant::now();
    output::prepare_out_dir(out, jobs_csv).context("--out is not usable")?;
    if cloud.is_none() {
        if let Some(trace) = stream_trace(spec)? {
            let streamed = Streamed {
                spec,
                engine,
                out,
                jobs_csv,
                bar,
                started,
            };
            if let Some(done) = streamed.replay(trace)? {
                return Ok(done);
            }
        }
    }
    let trace = load_trace(spec)?;
    show_notes(bar, &trace.notes);
    let (jobs, n_jobs) = arrivals(&trace, cloud)?;
    let config = engine.to_config(trace.procs)?;
    let load_seconds = started.elapsed().as_secs_f64();
    let without_cloud = hpc_without_cloud(&trace, cloud, &config)?;
    bar.set_length(n_jobs);
    // Records are written as jobs end and the summary tallied from them, so
    // memory follows the jobs in the system, not the workload.
    let mut writer = result_writer(out, jobs_csv)?;
    if let Some(summary) = &without_cloud {
        writer.set_without_cloud(summary.clone());
    }
    let run = simulate_stream(
        config.clone(),
        jobs,
        &SimOptions::default(),
        &mut writer,
        |done| bar.set_position(done),
    )
    .context("simulation failed")?;
    let info = run_info(spec, &trace.stats, cloud, &run.stats);
    let summary = writer
        .finish(&config, Some(&info))
        .context("cannot write the results")?;
    Ok(Replayed {
        summary,
        without_cloud,
        config,
        stats: run.stats,
        jobs: n_jobs,
        skipped: trace.skipped(),
        load_seconds,
    })
}

/// The notes on the trace's header, on stderr.
fn show_notes(bar: &ProgressBar, notes: &[String]) {
    bar.suspend(|| {
        for note in notes {
            eprintln!("interstice: note: {note}");
        }
    });
}

/// The writer of a replay's `jobs.csv` (unless not `jobs_csv`) and `summary.json` in `out`.
fn result_writer(out: &Path, jobs_csv: bool) -> anyhow::Result<output::ResultWriter<'static>> {
    let naming = output::Naming::Workload(WORKLOAD_NAME);
    if jobs_csv {
        output::ResultWriter::create(out, naming)
    } else {
        output::ResultWriter::summary_only(out, naming)
    }
    .context("cannot write the results")
}

/// [`replay`] of an HPC-only SWF trace read while it runs
/// ([`stream_trace`]: parsed on a second core, never held whole).
struct Streamed<'a> {
    spec: &'a TraceSpec,
    engine: &'a EngineArgs,
    out: &'a Path,
    jobs_csv: bool,
    bar: &'a ProgressBar,
    started: Instant,
}

impl Streamed<'_> {
    /// The replay, or `None` when the trace turned out not to be in
    /// submission order: what was written is dropped and the caller loads
    /// the trace whole. A trace that fails to read part-way leaves no
    /// `jobs.csv` behind, as one that fails before the run.
    fn replay(&self, mut trace: StreamedTrace) -> anyhow::Result<Option<Replayed>> {
        show_notes(self.bar, &trace.notes);
        // How many jobs the trace holds is known once it is read.
        if let Ok(style) = ProgressStyle::with_template("{spinner} submitted {pos} jobs ({elapsed})") {
            self.bar.set_style(style);
        }
        let config = self.engine.to_config(trace.procs)?;
        let load_seconds = self.started.elapsed().as_secs_f64();
        let mut writer = result_writer(self.out, self.jobs_csv)?;
        let run = simulate_stream(
            config.clone(),
            &mut trace.jobs,
            &SimOptions::default(),
            &mut writer,
            |done| self.bar.set_position(done),
        );
        let jobs = trace.jobs.yielded();
        let extraction = match trace.jobs.finish() {
            Ok(extraction) => extraction,
            Err(stopped) => {
                drop(writer);
                if self.jobs_csv {
                    let _ = std::fs::remove_file(self.out.join(JOBS_CSV));
                }
                return match stopped {
                    Interrupted::Unsorted { .. } => Ok(None),
                    Interrupted::Failed(err) => Err(err.into()),
                };
            }
        };
        let run = run.context("simulation failed")?;
        let info = run_info(self.spec, &extraction, None, &run.stats);
        let summary = writer
            .finish(&config, Some(&info))
            .context("cannot write the results")?;
        Ok(Some(Replayed {
            summary,
            without_cloud: None,
            config,
            stats: run.stats,
            jobs,
            skipped: extraction.skipped(),
            load_seconds,
        }))
    }
}

/// The summary of the same replay without its cloud jobs (injected by
/// `cloud` or carried by the workload), so that `summary.json` can say what
/// they cost the HPC jobs (`hpc.without_cloud`, `hpc.change`); `None` when
/// the run has no cloud job. An HPC-only run is a small part of one with a
/// cloud stream (the stream's jobs outnumber the trace's).
fn hpc_without_cloud(
    trace: &LoadedTrace,
    cloud: Option<&CloudSpec>,
    config: &EngineConfig,
) -> anyhow::Result<Option<Summary>> {
    let carries_cloud = trace.jobs.iter().any(|job| job.kind == JobKind::Cloud);
    if cloud.is_none() && !carries_cloud {
        return Ok(None);
    }
    let mut hpc: Vec<Job> = trace
        .jobs
        .iter()
        .filter(|job| job.kind == JobKind::Hpc)
        .cloned()
        .collect();
    hpc.sort_by_key(|job| job.submit);
    let mut tally = SummaryTally::default();
    simulate_stream(config.clone(), hpc, &SimOptions::default(), &mut tally, |_| {})
        .context("simulation without the cloud jobs failed")?;
    Ok(Some(tally.summary(config.procs)))
}

/// A progress bar on stderr when it is a terminal and not `quiet`; its
/// length is set once the workload is loaded.
fn progress_bar(quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} submitted {pos}/{len} jobs [{bar:30}] {eta}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

fn human_duration(secs: f64) -> String {
    if secs >= 86_400.0 {
        format!("{:.2} d", secs / 86_400.0)
    } else if secs >= 3600.0 {
        format!("{:.2} h", secs / 3600.0)
    } else {
        format!("{secs:.1} s")
    }
}

/// ` (without the cloud jobs: …)`: the HPC metrics of the same run without
/// its cloud jobs, or that they are the same.
fn against_without_cloud(summary: &Summary, base: &Summary) -> String {
    let same = summary.hpc_makespan == base.hpc_makespan
        && summary.hpc_mean_wait == base.hpc_mean_wait
        && summary.hpc_mean_bounded_slowdown == base.hpc_mean_bounded_slowdown;
    if same {
        return " (the same without the cloud jobs)".to_string();
    }
    format!(
        " (without the cloud jobs: makespan {}, mean wait {}, mean bounded slowdown {:.2})",
        human_duration(base.hpc_makespan),
        base.hpc_mean_wait.map_or("n/a".to_string(), human_duration),
        Shown(base.hpc_mean_bounded_slowdown),
    )
}

/// The replay's summary for people: what ran, the HPC jobs, the cloud jobs
/// and the predictions, and where the files are.
fn print_summary(done: &Replayed, out: &Path, jobs_csv: bool, wall: f64) -> anyhow::Result<()> {
    let Replayed {
        summary,
        without_cloud,
        config,
        stats,
        load_seconds: load,
        ..
    } = done;
    let resized = match config.area_schedule.len() {
        0 => String::new(),
        n => format!(", resized {n} times by the area schedule"),
    };
    outln!(
        "replayed {} jobs ({} HPC, {} cloud) on {} processors (area {}{resized}), policy {}, admission {}",
        summary.jobs,
        summary.hpc_jobs,
        summary.cloud_jobs,
        config.procs,
        config.conv_procs,
        config.policy,
        config.admission.name()
    )?;
    outln!(
        "all jobs: makespan {}, utilization {:.1} %",
        human_duration(summary.makespan),
        Shown(summary.utilization.map(|u| u * 100.0)),
    )?;
    outln!(
        "HPC jobs: makespan {}, mean wait {}, mean bounded slowdown {:.2}{}",
        human_duration(summary.hpc_makespan),
        summary.hpc_mean_wait.map_or("n/a".to_string(), human_duration),
        Shown(summary.hpc_mean_bounded_slowdown),
        without_cloud
            .as_ref()
            .map_or(String::new(), |base| against_without_cloud(summary, base)),
    )?;
    if summary.cloud_jobs > 0 {
        outln!(
            "cloud jobs: {} submitted, {} admitted, {} rejected; {} missed their SLO: {:.2} % of submitted, \
             {:.2} % of admitted; {} evictions",
            summary.cloud_jobs,
            summary.admitted(),
            summary.rejected,
            summary.violations,
            Shown(summary.violation_percent),
            Shown(summary.violation_percent_of_admitted()),
            summary.evictions,
        )?;
        if !config.candidates.is_unlimited() || config.regulation.is_some() {
            outln!(
                "of the rejected: {} not candidates (--candidate-*), {} held back by the regulator (--regulate)",
                summary.rejected_not_candidate,
                summary.rejected_regulated,
            )?;
        }
        let quality = &summary.prediction;
        outln!(
            "prediction ({}): tp {} fp {} fn {} tn {} (precision {:.3}, recall {:.3}; thesis accuracy {:.3}, \
             precision {:.3})",
            config.predictor.name(),
            quality.tp,
            quality.fp,
            quality.fn_,
            quality.tn,
            Shown(quality.precision),
            Shown(quality.recall),
            Shown(quality.thesis_accuracy),
            Shown(quality.thesis_precision)
        )?;
        let scored: Vec<String> = Predictor::ALL
            .into_iter()
            .map(|predictor| {
                let q = summary.predictors.of(predictor);
                format!(
                    "{predictor} {:.3}/{:.3}/{:.4}",
                    Shown(q.precision),
                    Shown(q.recall),
                    Shown(q.brier)
                )
            })
            .collect();
        outln!("every predictor, precision/recall/Brier: {}", scored.join(", "))?;
        let foreseeable: Vec<String> = Predictor::ALL
            .into_iter()
            .map(|predictor| {
                let q = summary.predictors_foreseeable.of(predictor);
                format!("{predictor} {:.3}/{:.3}", Shown(q.precision), Shown(q.recall))
            })
            .collect();
        outln!(
            "foreseeable jobs ({} unforeseeable violations left out), precision/recall: {}",
            summary.unforeseeable_violations,
            foreseeable.join(", ")
        )?;
    }
    if stats.never_started > 0 {
        outln!("warning: {} jobs never started", stats.never_started)?;
    }
    let written = if jobs_csv {
        format!(
            "{} and {}",
            out.join(JOBS_CSV).display(),
            out.join(SUMMARY_JSON).display()
        )
    } else {
        out.join(SUMMARY_JSON).display().to_string()
    };
    outln!("wrote {written} in {wall:.2} s (load {load:.2} s)")?;
    Ok(())
}

/// Arguments of `interstice bench replay`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// A real HPC trace (SWF/Batsim JSON) instead of the synthetic PIK-IPLEX-like month.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Processors of the machine.
    #[arg(long, default_value_t = SyntheticOptions::THESIS_PROCS, value_parser = super::engine_args::parse_generated_procs)]
    pub procs: u32,
    /// Processors of the convergence area (default: the whole machine).
    #[arg(long)]
    pub conv: Option<u32>,
    /// Synthetic HPC jobs.
    #[arg(long, default_value_t = SyntheticOptions::THESIS_JOBS, value_parser = super::engine_args::parse_job_count)]
    pub hpc_jobs: usize,
    /// Synthetic trace length, days.
    #[arg(long, default_value_t = SyntheticOptions::THESIS_DAYS, value_parser = super::engine_args::parse_generated_days)]
    pub days: u32,
    /// Seconds between cloud jobs.
    #[arg(long, value_parser = parse_seconds, default_value_t = defaults::CLOUD_INTERVAL_SECS)]
    pub cloud_interval: f64,
    /// Cloud jobs' run time (see `replay --cloud-runtime`).
    #[arg(long, value_parser = parse_runtime, default_value = "uniform:0.1w:0.5w")]
    pub cloud_runtime: RuntimeSpec,
    /// Policies to time, comma-separated.
    #[arg(long, value_parser = parse_policy, value_delimiter = ',', default_value = "conservative,convergence")]
    pub policies: Vec<Policy>,
    /// Seed of the synthetic workload and the cloud jobs.
    #[arg(long, default_value_t = SyntheticOptions::DEFAULT_SEED)]
    pub seed: u64,
}

/// Run the replay benchmark: one full replay per policy, reported as `METRIC:name:value:unit`.
pub fn bench(args: BenchArgs) -> anyhow::Result<()> {
    let conv = args.conv.unwrap_or(args.procs);
    if conv > args.procs || conv == 0 {
        bail!("--conv {conv} must be between 1 and --procs {}", args.procs);
    }
    let setup = Instant::now();
    let mut hpc = match &args.trace {
        Some(path) => {
            let extract = ExtractOptions {
                machine_procs: Some(args.procs),
                clip: Some(conv),
                ..ExtractOptions::new()
            };
            interstice_swf::load_workload(path, &extract)
                .with_context(|| format!("cannot load trace {}", path.display()))?
                .jobs
        }
        None => hpc_workload(&SyntheticOptions {
            procs: args.procs,
            jobs: args.hpc_jobs,
            duration: Time::from_secs(i64::from(args.days) * 86_400),
            ..SyntheticOptions::thesis(args.seed)
        }),
    };
    clip_jobs(&mut hpc, conv);
    let cloud = CloudSpec {
        interval: args.cloud_interval,
        procs: parse_procs_choice("1,2,4")?,
        walltime: defaults::CLOUD_WALLTIME_SECS,
        runtime: args.cloud_runtime,
        slack: defaults::SLACK,
        alpha: defaults::ALPHA,
        seed: args.seed,
    };
    let first_id = first_injected_id(&hpc);
    let span = injection_span(&hpc);
    let mut jobs = hpc;
    let n_hpc = jobs.len();
    if let Some((first, last)) = span {
        jobs.extend(cloud.jobs(first, last, first_id)?);
    }
    outln!(
        "METRIC:replay_setup_seconds:{:.3}:s",
        setup.elapsed().as_secs_f64()
    )?;
    outln!("METRIC:replay_hpc_jobs:{n_hpc}:jobs")?;
    outln!("METRIC:replay_jobs:{}:jobs", jobs.len())?;

    for policy in &args.policies {
        let config = EngineOptions {
            policy: Some(*policy),
            conv: Some(conv),
            ..EngineOptions::default()
        }
        .to_config(args.procs)
        .map_err(anyhow::Error::msg)?;
        let workload = jobs.clone();
        let started = Instant::now();
        let result = simulate(config.clone(), workload, &SimOptions::default(), |_, _| {})
            .with_context(|| format!("replay with policy {policy} failed"))?;
        let wall = started.elapsed().as_secs_f64();
        let name = policy.name();
        let out_dir = std::env::temp_dir().join(format!("interstice-bench-replay-{}", std::process::id()));
        let writing = Instant::now();
        output::write_outputs(
            &out_dir,
            output::Naming::Workload(WORKLOAD_NAME),
            &result.records,
            &config,
        )
        .with_context(|| format!("cannot write results to {}", out_dir.display()))?;
        let write = writing.elapsed().as_secs_f64();
        let _ = std::fs::remove_dir_all(&out_dir);
        outln!("METRIC:replay_{name}_wall_seconds:{wall:.3}:s")?;
        outln!("METRIC:replay_{name}_write_seconds:{write:.3}:s")?;
        outln!(
            "METRIC:replay_{name}_jobs_per_second:{:.0}:jobs/s",
            jobs.len() as f64 / wall.max(1e-9)
        )?;
        outln!(
            "METRIC:replay_{name}_violation_percent:{:.4}:%",
            Shown(result.summary.violation_percent)
        )?;
        outln!(
            "METRIC:replay_{name}_evictions:{}:evictions",
            result.summary.evictions
        )?;
        outln!(
            "METRIC:replay_{name}_hpc_makespan:{:.0}:s",
            result.summary.hpc_makespan
        )?;
    }
    if let Some(peak) = peak_memory_bytes() {
        outln!("METRIC:replay_peak_memory:{peak}:bytes")?;
    }
    Ok(())
}

/// Peak resident memory of this process (`VmHWM` of `/proc/self/status`), in bytes.
fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
