//! `interstice replay`: simulate a whole workload (SWF or Batsim JSON), with
//! injected cloud jobs, on one machine with the built-in simulator, and write
//! `jobs.csv` + `summary.json`. Also `interstice bench replay`, the
//! thesis-size scenario.
//!
//! Jobs end as in Batsim with `delay` profiles: a job whose run time is below
//! its walltime completes (`COMPLETED_SUCCESSFULLY`); one whose run time is
//! equal to or above it is killed at the walltime (`COMPLETED_WALLTIME_REACHED`).

use super::engine_args::{
    parse_factor, parse_policy, parse_procs_choice, parse_runtime, parse_seconds, EngineArgs,
};
use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use interstice_batsim::output::{self, JOBS_CSV, SUMMARY_JSON};
use interstice_batsim::protocol::EngineOptions;
use interstice_batsim::sim::synthetic::{hpc_workload, SyntheticOptions};
use interstice_batsim::sim::{simulate, simulate_stream, SimOptions, SimStats};
use interstice_core::{EngineConfig, Job, JobKind, Policy, Shown, Summary, Time};
use interstice_swf::inject::{inject_cloud_jobs, CloudJobs, InjectOptions, ProcsChoice, RuntimeSpec};
use interstice_swf::merge_by_submit;
use interstice_swf::ExtractOptions;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `--clip` clips HPC jobs to.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClipTarget {
    /// The convergence area (`--conv`), as the thesis does.
    Area,
    /// The whole machine (`--procs`).
    Machine,
}

impl ClipTarget {
    /// `area` or `machine`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ClipTarget::Area => "area",
            ClipTarget::Machine => "machine",
        }
    }
}

/// Simulate a whole workload with the engine, no outside simulator.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Jobs end as in Batsim (delay profiles): a job whose run time is not below its walltime is \
    killed at the walltime (COMPLETED_WALLTIME_REACHED); a job without walltime (SWF: no requested \
    time; Batsim: -1) runs its whole run time.\n\n\
    Example: interstice replay KTH-SP2.swf.gz --policy convergence --conv 10 --cloud-interval 10 \
    --cloud-procs 1,2,4 --cloud-runtime 0.1w --slack 2 --out results/"
)]
pub struct ReplayArgs {
    /// The workload: SWF (plain or .gz) or a Batsim workload JSON (from `swf inject`).
    pub workload: PathBuf,
    /// Processors of the machine (default: the workload's machine size).
    #[arg(long)]
    pub procs: Option<u32>,
    /// Engine options (--policy is required).
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Inject one cloud job every S seconds over the HPC trace's span (no injection without it).
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub cloud_interval: Option<f64>,
    /// Processors of each cloud job: `4`, a uniform list `1,2,4`, or weights `1:0.5,2:0.3,4:0.2`.
    #[arg(long, value_name = "H", value_parser = parse_procs_choice, default_value = "1")]
    pub cloud_procs: ProcsChoice,
    /// Walltime of each cloud job, seconds.
    #[arg(long, value_name = "W", value_parser = parse_seconds, default_value = "180")]
    pub cloud_walltime: f64,
    /// Actual run time of each cloud job: `walltime`, seconds, `0.1w`, `uniform:LO:HI`, `exp:MEAN`.
    /// As in Batsim (a `delay` profile), a job whose run time is not below its walltime is killed
    /// at its walltime (COMPLETED_WALLTIME_REACHED), so `walltime` makes every cloud job end killed.
    #[arg(long, value_name = "R", value_parser = parse_runtime, default_value = "walltime")]
    pub cloud_runtime: RuntimeSpec,
    /// Slack factor f: each cloud job's SLO is f × its walltime.
    #[arg(long, value_name = "F", value_parser = parse_factor, default_value = "2")]
    pub slack: f64,
    /// Multiply every HPC walltime by this factor.
    #[arg(long, value_parser = parse_factor, default_value = "1")]
    pub walltime_factor: f64,
    /// Only replay the jobs submitted in the first S seconds after the workload's first submission.
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub until: Option<f64>,
    /// Clip HPC jobs wider than the area (`--clip`, `--clip=area`, as the thesis does) or the machine
    /// (`--clip=machine`) to it.
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "area")]
    pub clip: Option<ClipTarget>,
    /// Skip bad workload lines (counted in the summary) instead of stopping at the first.
    #[arg(long)]
    pub lenient: bool,
    /// Seed of the cloud jobs' random draws.
    #[arg(long, default_value = "1")]
    pub seed: u64,
    /// Output directory (jobs.csv, summary.json).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// No progress bar and no summary on stdout.
    #[arg(long)]
    pub quiet: bool,
}

/// The workload Batsim calls `w0`.
pub(crate) const WORKLOAD_NAME: &str = "w0";

/// The cloud injection settings of a run.
#[derive(Clone, Debug)]
pub(crate) struct CloudSpec {
    pub(crate) interval: f64,
    pub(crate) procs: ProcsChoice,
    pub(crate) walltime: f64,
    pub(crate) runtime: RuntimeSpec,
    pub(crate) slack: f64,
    pub(crate) seed: u64,
}

impl CloudSpec {
    /// Cloud jobs every `interval` over `[from, to]`, ids from `first_id`, with
    /// their run times drawn (the draws of `swf inject` and of the Batsim
    /// adapter), generated as they are pulled.
    fn jobs(&self, from: Time, to: Time, first_id: u64) -> anyhow::Result<CloudJobs> {
        let options = InjectOptions {
            interval: Time::from_secs_f64(self.interval),
            procs: self.procs.clone(),
            walltime: Time::from_secs_f64(self.walltime),
            runtime: self.runtime,
            slack: self.slack,
            seed: self.seed,
        };
        options.validate().context("bad cloud-job options")?;
        Ok(inject_cloud_jobs(&options, from, to, first_id))
    }

    fn max_procs(&self) -> u32 {
        self.procs.max()
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "interval": self.interval,
            "procs": procs_choice_text(&self.procs),
            "walltime": self.walltime,
            "runtime": self.runtime.to_string(),
            "slack": self.slack,
            "seed": self.seed,
        })
    }
}

/// `4`, or `1:0.5,2:0.5` for a weighted choice (the form `summary.json` records).
pub(crate) fn procs_choice_text(choice: &ProcsChoice) -> String {
    match choice {
        ProcsChoice::Fixed(procs) => procs.to_string(),
        ProcsChoice::Weighted(choices) => choices
            .iter()
            .map(|(procs, weight)| format!("{procs}:{weight}"))
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// Which HPC trace a run replays, and how it is cut and clipped: the
/// workload-side options of `replay` (shared with `sweep`).
#[derive(Clone, Debug)]
pub(crate) struct TraceSpec {
    pub(crate) workload: PathBuf,
    pub(crate) procs: Option<u32>,
    pub(crate) conv: Option<u32>,
    pub(crate) walltime_factor: f64,
    pub(crate) until: Option<f64>,
    pub(crate) clip: Option<ClipTarget>,
    pub(crate) lenient: bool,
}

/// A loaded, cut and clipped trace, before any cloud injection.
#[derive(Clone, Debug)]
pub(crate) struct LoadedTrace {
    /// The trace's jobs (HPC, plus any cloud jobs a Batsim JSON already holds).
    pub(crate) jobs: Vec<Job>,
    /// Processors of the machine.
    pub(crate) procs: u32,
    /// Processors of the convergence area.
    pub(crate) conv: u32,
    stats: interstice_swf::ExtractStats,
    clipped_late: u64,
}

impl LoadedTrace {
    /// Workload records skipped by the loader.
    pub(crate) fn skipped(&self) -> u64 {
        self.stats.skipped()
    }
}

/// Load, cut (`until`) and clip the trace of `spec`, checking that every job fits.
pub(crate) fn load_trace(spec: &TraceSpec) -> anyhow::Result<LoadedTrace> {
    if let (Some(procs), Some(conv)) = (spec.procs, spec.conv) {
        if conv > procs {
            bail!(
                "--conv {conv} is larger than --procs {procs}: the convergence area is part of the machine"
            );
        }
    }
    if spec.procs == Some(0) {
        bail!("--procs must be at least 1");
    }
    if spec.conv == Some(0) {
        bail!("--conv must be at least 1 (the area is processors 0..C)");
    }

    let clip_to = match spec.clip {
        Some(ClipTarget::Area) => spec.conv.or(spec.procs),
        Some(ClipTarget::Machine) => spec.procs,
        None => None,
    };
    let extract = ExtractOptions {
        // Strict mode checks widths below, with replay's own advice; lenient
        // mode lets the loader skip (and count) jobs wider than the machine.
        machine_procs: if spec.lenient { spec.procs } else { None },
        clip: clip_to,
        // `--clip=machine` (or `--clip` without an area) with the machine
        // size from the trace: clip to it rather than reject.
        clip_to_machine: spec.clip.is_some(),
        walltime_factor: spec.walltime_factor,
        mode: if spec.lenient {
            interstice_swf::Strictness::Lenient
        } else {
            interstice_swf::Strictness::Strict
        },
    };
    let workload = interstice_swf::load_workload(&spec.workload, &extract).map_err(|err| match err {
        // The loader's advice names `swf convert`'s `--clip M`: give replay's.
        interstice_swf::SwfError::Line {
            file,
            line,
            kind: interstice_swf::LineError::TooWide { job, procs, machine },
        } => anyhow::anyhow!(
            "{file}:{line}: hpc job {job} needs {procs} processors but the machine has {machine}: {WIDE_JOB_ADVICE}"
        ),
        err => anyhow::Error::new(err).context("cannot load the workload"),
    })?;
    let procs = match spec.procs.or(workload.machine_procs) {
        Some(procs) if procs > 0 => procs,
        _ => bail!(
            "the machine size of {} is unknown (no MaxProcs/MaxNodes header or nb_res): give --procs",
            spec.workload.display()
        ),
    };
    let conv = spec.conv.unwrap_or(procs);
    if conv > procs {
        bail!(
            "--conv {conv} is larger than the machine ({procs} processors): the area is part of the machine"
        );
    }
    let mut jobs = workload.jobs;
    if let Some(until) = spec.until {
        let first = jobs.iter().map(|job| job.submit).min().unwrap_or(Time::ZERO);
        let end = first + Time::from_secs_f64(until);
        jobs.retain(|job| job.submit < end);
    }
    let clipped_late = clip_jobs(
        &mut jobs,
        spec.clip
            .map(|target| if target == ClipTarget::Area { conv } else { procs }),
    );
    check_widths(&jobs, procs, conv, &spec.workload)?;
    Ok(LoadedTrace {
        jobs,
        procs,
        conv,
        stats: workload.stats,
        clipped_late,
    })
}

/// The trace's jobs plus the cloud jobs of `cloud`, injected over the HPC jobs' submission span.
pub(crate) fn with_cloud_jobs(trace: &LoadedTrace, cloud: Option<&CloudSpec>) -> anyhow::Result<Vec<Job>> {
    Ok(arrivals(trace, cloud)?.0.collect())
}

/// The trace's jobs and the cloud jobs of `cloud` (injected over the HPC
/// jobs' submission span, numbered after the trace's largest id), merged in
/// submission order as they are pulled, ties in the trace's order first
/// (what a stable sort of the trace followed by the cloud jobs gives); and
/// how many there are.
pub(crate) fn arrivals(
    trace: &LoadedTrace,
    cloud: Option<&CloudSpec>,
) -> anyhow::Result<(impl Iterator<Item = Job>, u64)> {
    let mut jobs = trace.jobs.clone();
    jobs.sort_by_key(|job| job.submit);
    let mut injected = None;
    if let Some(cloud) = cloud {
        if cloud.max_procs() > trace.conv {
            bail!(
                "--cloud-procs asks for up to {} processors but the convergence area has {}: \
                 lower --cloud-procs or raise --conv",
                cloud.max_procs(),
                trace.conv
            );
        }
        let hpc = jobs
            .iter()
            .filter(|job| job.kind == JobKind::Hpc)
            .map(|job| job.submit);
        if let (Some(first), Some(last)) = (hpc.clone().min(), hpc.max()) {
            let first_id = jobs.iter().map(|job| job.id.0).max().unwrap_or(0) + 1;
            injected = Some(cloud.jobs(first, last, first_id)?);
        }
    }
    let total = jobs.len() as u64 + injected.as_ref().map_or(0, |cloud| cloud.size_hint().0 as u64);
    Ok((merge_by_submit(jobs, injected.into_iter().flatten()), total))
}

/// The `"run"` object of `summary.json`: what was replayed and how.
pub(crate) fn run_info(
    spec: &TraceSpec,
    trace: &LoadedTrace,
    cloud: Option<&CloudSpec>,
    stats: &SimStats,
) -> serde_json::Value {
    serde_json::json!({
        "workload": spec.workload.display().to_string(),
        "until": spec.until,
        "walltime_factor": spec.walltime_factor,
        "clip": spec.clip.map(ClipTarget::name),
        "cloud": cloud.map(CloudSpec::to_json),
        "extraction": {
            "records": trace.stats.records,
            "jobs": trace.stats.jobs,
            "skipped": trace.stats.skipped(),
            "skipped_by_reason": {
                "no_submit": trace.stats.skipped_no_submit,
                "runtime": trace.stats.skipped_runtime,
                "procs": trace.stats.skipped_procs,
                "too_wide": trace.stats.skipped_too_wide,
                "out_of_range": trace.stats.skipped_out_of_range,
                "duplicate_id": trace.stats.skipped_duplicate_id,
                "bad_lines": trace.stats.bad_lines,
            },
            "clipped": trace.stats.clipped + trace.clipped_late,
        },
        "never_started": stats.never_started,
    })
}

/// Run a replay.
pub fn run(args: ReplayArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    if args.engine.policy.is_none() {
        bail!("--policy is required: fcfs, easy, conservative or convergence");
    }
    let spec = TraceSpec {
        workload: args.workload.clone(),
        procs: args.procs,
        conv: args.engine.conv,
        walltime_factor: args.walltime_factor,
        until: args.until,
        clip: args.clip,
        lenient: args.lenient,
    };
    output::prepare_out_dir(&args.out).context("--out is not usable")?;
    let trace = load_trace(&spec)?;
    let cloud = args.cloud_interval.map(|interval| CloudSpec {
        interval,
        procs: args.cloud_procs.clone(),
        walltime: args.cloud_walltime,
        runtime: args.cloud_runtime,
        slack: args.slack,
        seed: args.seed,
    });
    let (jobs, n_jobs) = arrivals(&trace, cloud.as_ref())?;

    let config = args.engine.to_config(trace.procs)?;
    let loaded = started.elapsed();
    let bar = progress_bar(n_jobs, args.quiet);
    // Records are written as jobs end and the summary tallied from them, so
    // memory follows the jobs in the system, not the workload.
    let mut writer = output::ResultWriter::create(&args.out, output::Naming::Workload(WORKLOAD_NAME))
        .context("cannot write the results")?;
    let run = simulate_stream(
        config.clone(),
        jobs,
        &SimOptions::default(),
        &mut writer,
        |done| bar.set_position(done),
    )
    .context("simulation failed")?;
    bar.finish_and_clear();

    let info = run_info(&spec, &trace, cloud.as_ref(), &run.stats);
    let summary = writer
        .finish(&config, Some(&info))
        .context("cannot write the results")?;
    if !args.quiet {
        print_summary(
            &summary,
            &config,
            &run.stats,
            &args.out,
            started.elapsed().as_secs_f64(),
            loaded.as_secs_f64(),
        )?;
        if trace.skipped() > 0 {
            eprintln!(
                "note: {} workload records were skipped (see summary.json run.extraction)",
                trace.skipped()
            );
        }
    }
    Ok(())
}

/// Clip HPC jobs wider than `to` (when known); returns how many were clipped.
fn clip_jobs(jobs: &mut [Job], to: Option<u32>) -> u64 {
    let Some(to) = to else { return 0 };
    let mut clipped = 0;
    for job in jobs
        .iter_mut()
        .filter(|job| job.kind == JobKind::Hpc && job.procs > to)
    {
        job.procs = to;
        clipped += 1;
    }
    clipped
}

/// What to do about a job wider than the machine or the area.
const WIDE_JOB_ADVICE: &str =
    "use --clip=machine or --clip=area to clip HPC jobs, --lenient to skip them, or raise --procs/--conv";

/// Every job must fit: HPC jobs in the machine, cloud jobs in the area.
fn check_widths(jobs: &[Job], procs: u32, conv: u32, path: &Path) -> anyhow::Result<()> {
    for job in jobs {
        let limit = if job.kind == JobKind::Cloud { conv } else { procs };
        if job.procs > limit {
            let place = if job.kind == JobKind::Cloud {
                "convergence area"
            } else {
                "machine"
            };
            bail!(
                "{}: {} job {} needs {} processors but the {place} has {limit}: {WIDE_JOB_ADVICE}",
                path.display(),
                job.kind,
                job.id,
                job.procs
            );
        }
    }
    Ok(())
}

fn progress_bar(total: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
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

fn print_summary(
    summary: &Summary,
    config: &EngineConfig,
    stats: &SimStats,
    out: &Path,
    wall: f64,
    load: f64,
) -> anyhow::Result<()> {
    outln!(
        "replayed {} jobs ({} HPC, {} cloud) on {} processors (area {}), policy {}, admission {}",
        summary.jobs,
        summary.hpc_jobs,
        summary.cloud_jobs,
        config.procs,
        config.conv_procs,
        config.policy,
        config.admission.name()
    )?;
    outln!(
        "makespan {} (HPC {}), utilization {:.1} %, mean wait {}, mean bounded slowdown {:.2}",
        human_duration(summary.makespan),
        human_duration(summary.hpc_makespan),
        Shown(summary.utilization.map(|u| u * 100.0)),
        summary.mean_wait.map_or("n/a".to_string(), human_duration),
        Shown(summary.mean_bounded_slowdown)
    )?;
    if summary.cloud_jobs > 0 {
        let quality = &summary.prediction;
        outln!(
            "cloud: {} violations ({:.4} %), {} evictions, {} rejected; prediction tp {} fp {} fn {} tn {} \
             (precision {:.3}, recall {:.3}; thesis accuracy {:.3}, precision {:.3})",
            summary.violations,
            Shown(summary.violation_percent),
            summary.evictions,
            summary.rejected,
            quality.tp,
            quality.fp,
            quality.fn_,
            quality.tn,
            Shown(quality.precision),
            Shown(quality.recall),
            Shown(quality.thesis_accuracy),
            Shown(quality.thesis_precision)
        )?;
    }
    if stats.never_started > 0 {
        outln!("warning: {} jobs never started", stats.never_started)?;
    }
    outln!(
        "wrote {} and {} in {wall:.2} s (load {load:.2} s)",
        out.join(JOBS_CSV).display(),
        out.join(SUMMARY_JSON).display()
    )?;
    Ok(())
}

/// Arguments of `interstice bench replay`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// A real HPC trace (SWF/Batsim JSON) instead of the synthetic PIK-IPLEX-like month.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Processors of the machine.
    #[arg(long, default_value = "2560")]
    pub procs: u32,
    /// Processors of the convergence area (default: the whole machine).
    #[arg(long)]
    pub conv: Option<u32>,
    /// Synthetic HPC jobs.
    #[arg(long, default_value = "11000")]
    pub hpc_jobs: usize,
    /// Synthetic trace length, days.
    #[arg(long, default_value = "30")]
    pub days: u32,
    /// Seconds between cloud jobs.
    #[arg(long, value_parser = parse_seconds, default_value = "10")]
    pub cloud_interval: f64,
    /// Cloud jobs' run time (see `replay --cloud-runtime`).
    #[arg(long, value_parser = parse_runtime, default_value = "uniform:0.1w:0.5w")]
    pub cloud_runtime: RuntimeSpec,
    /// Policies to time, comma-separated.
    #[arg(long, value_parser = parse_policy, value_delimiter = ',', default_value = "conservative,convergence")]
    pub policies: Vec<Policy>,
    /// Seed of the synthetic workload and the cloud jobs.
    #[arg(long, default_value = "2017")]
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
            utilization: 0.38,
            seed: args.seed,
            first_id: 1,
        }),
    };
    clip_jobs(&mut hpc, Some(conv));
    let first = hpc.iter().map(|job| job.submit).min().unwrap_or(Time::ZERO);
    let last = hpc.iter().map(|job| job.submit).max().unwrap_or(Time::ZERO);
    let cloud = CloudSpec {
        interval: args.cloud_interval,
        procs: parse_procs_choice("1,2,4").map_err(anyhow::Error::msg)?,
        walltime: 180.0,
        runtime: args.cloud_runtime,
        slack: 2.0,
        seed: args.seed,
    };
    let first_id = hpc.iter().map(|job| job.id.0).max().unwrap_or(0) + 1;
    let mut jobs = hpc;
    let n_hpc = jobs.len();
    jobs.extend(cloud.jobs(first, last, first_id)?);
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
