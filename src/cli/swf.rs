//! `interstice swf …`: read, inspect, convert and enrich SWF workload traces,
//! and `interstice bench swf`, the parser's throughput.
//!
//! Everything here is composition: the formats and rules live in `interstice-swf`.
//! The progress bar goes to stderr and only when stderr is a terminal.

use super::engine_args::{parse_alpha, parse_duration, parse_factor};
use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use interstice_batsim::sim::synthetic::{hpc_workload, SyntheticOptions};
use interstice_core::{Job, JobKind, Time};
use interstice_swf::experiment::{check_cloud_fits, first_injected_id, injection_span, CloudRoom};
use interstice_swf::inject::{inject_cloud_jobs, InjectOptions, ProcsChoice, RuntimeSpec, SplitMix64};
use interstice_swf::input::{self, Input};
use interstice_swf::label::JobLabel;
use interstice_swf::qos::QosSpec;
use interstice_swf::{
    batsim_json, merge_by_submit, write_trace, ExtractOptions, ExtractStats, JobStream, StatsBuilder,
    Strictness, SwfReader, Workload, WorkloadStats,
};
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Flags every `swf` subcommand takes.
#[derive(clap::Args, Debug, Clone)]
pub struct CommonArgs {
    /// Skip lines that do not parse (and jobs wider than the machine), count
    /// them and report the first few, instead of stopping at the first.
    #[arg(long)]
    pub lenient: bool,
    /// No progress bar and no notes on stderr (errors are still printed).
    #[arg(long)]
    pub quiet: bool,
}

impl CommonArgs {
    fn mode(&self) -> Strictness {
        if self.lenient {
            Strictness::Lenient
        } else {
            Strictness::Strict
        }
    }
}

/// SWF subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum SwfCommand {
    /// Workload statistics: jobs, skipped records by reason, span, machine size, offered load.
    Stats(StatsArgs),
    /// Convert an SWF trace (or a Batsim workload JSON, normalised) to a Batsim workload JSON.
    Convert(ConvertArgs),
    /// Add cloud jobs at a regular interval to a trace; write Batsim workload JSON.
    Inject(InjectArgs),
    /// Print the trace as normalised SWF on stdout.
    Cat(CatArgs),
    /// Write a synthetic SWF trace: by default the PIK-IPLEX-like month the thesis ran on
    /// (2,560 processors, 11,000 jobs, 30 days, 38 % offered load).
    Synth(SynthArgs),
}

/// `interstice swf stats`.
#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// SWF trace (plain or .gz), Batsim workload JSON, or `-` for stdin.
    pub file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// Options shared by `convert` and `inject` about the HPC jobs.
#[derive(clap::Args, Debug)]
pub struct HpcArgs {
    /// Clip jobs wider than M processors to M.
    #[arg(long, value_name = "M")]
    pub clip: Option<u32>,
    /// Multiply every walltime by F.
    #[arg(long, value_name = "F", default_value_t = interstice_swf::defaults::WALLTIME_FACTOR, value_parser = parse_factor)]
    pub walltime_factor: f64,
}

/// `interstice swf convert`.
#[derive(clap::Args, Debug)]
pub struct ConvertArgs {
    /// SWF trace (plain or .gz), a Batsim workload JSON (written back with each cloud job's `alpha`
    /// applied to its walltime, as Batsim needs), or `-` for stdin.
    pub file: PathBuf,
    /// Output Batsim workload JSON (`-` for stdout).
    #[arg(short, long, value_name = "OUT.json")]
    pub output: PathBuf,
    /// Processors of the machine (default: the header's MaxProcs, else MaxNodes).
    #[arg(long, value_name = "M")]
    pub procs: Option<u32>,
    #[command(flatten)]
    pub hpc: HpcArgs,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `interstice swf inject`.
#[derive(clap::Args, Debug)]
pub struct InjectArgs {
    /// SWF trace (plain or .gz), Batsim workload JSON, or `-` for stdin.
    pub file: PathBuf,
    /// Output Batsim workload JSON (`-` for stdout).
    #[arg(short, long, value_name = "OUT.json")]
    pub output: PathBuf,
    /// Seconds between two cloud jobs.
    #[arg(long, value_name = "S", value_parser = parse_duration)]
    pub interval: Time,
    /// Processors per cloud job: a count (4), a uniform list (1,2,4) or weights (1:0.5,2:0.3,4:0.2).
    /// Required (checked after parsing, so that the old spelling `--procs H` is named).
    #[arg(long, value_name = "H", value_parser = super::engine_args::parse_procs_choice)]
    pub cloud_procs: Option<ProcsChoice>,
    /// Walltime of each cloud job, seconds.
    #[arg(long, value_name = "W", value_parser = parse_duration)]
    pub walltime: Time,
    /// SLO of each cloud job = F × walltime.
    #[arg(long, value_name = "F", value_parser = parse_factor, default_value_t = interstice_swf::defaults::SLACK)]
    pub slack: f64,
    /// Walltime reconciliation factor α (the thesis's wt = wt^c × α): each cloud job is written with
    /// walltime α × --walltime; its SLO (F × --walltime) and run time do not change.
    #[arg(long, value_name = "F", value_parser = parse_alpha, default_value_t = interstice_swf::defaults::ALPHA)]
    pub alpha: f64,
    /// Run time of each cloud job: `walltime` (the default), seconds (90), a fraction of the walltime
    /// (0.1w), `uniform:LO:HI` or `exp:MEAN` (drawn with --seed). Batsim kills a job whose run time is
    /// not below its walltime, at the walltime.
    #[arg(long, value_name = "R", value_parser = super::engine_args::parse_runtime)]
    pub runtime: Option<RuntimeSpec>,
    /// First cloud submit time, seconds (default: the first HPC submit).
    #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = super::engine_args::parse_instant)]
    pub from: Option<f64>,
    /// Last cloud submit time, seconds (default: the last HPC submit).
    #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = super::engine_args::parse_instant)]
    pub to: Option<f64>,
    /// Seed of the random draws (processors, run times).
    #[arg(long, value_name = "N", default_value_t = interstice_swf::defaults::SEED)]
    pub seed: u64,
    /// Give every cloud job a service class and tenant (`"class"`, `"tenant"`), drawn by this
    /// class file's weights and seed as `interstice replay --qos FILE` draws them; a job the
    /// workload already labels keeps its label (docs/qos.md).
    #[arg(long, value_name = "FILE")]
    pub qos: Option<PathBuf>,
    /// Processors of the machine (default: the header's MaxProcs/MaxNodes or nb_res).
    #[arg(long, value_name = "M", value_parser = super::flags::parse_machine_procs)]
    pub procs: Option<u32>,
    /// The old name of --procs: refused, naming the new one.
    #[arg(long, value_name = "M", hide = true, value_parser = super::flags::renamed_machine_procs)]
    pub machine_procs: Option<u32>,
    #[command(flatten)]
    pub hpc: HpcArgs,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `interstice swf cat`.
#[derive(clap::Args, Debug)]
pub struct CatArgs {
    /// SWF trace (plain or .gz), or `-` for stdin.
    pub file: PathBuf,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `interstice swf synth`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "The trace is the workload of `interstice bench replay` and `replay` without a \
trace: job widths mostly up to 16 processors (a few up to 1,024), log-uniform run times scaled to the \
offered load, walltimes 1-3 times the run time rounded up to 15 minutes, arrivals uniform over the \
duration. The thesis's own trace (PIK-IPLEX, May 2011) is the Parallel Workloads Archive's \
PIK-IPLEX-2009-1, not shipped here; this month has its size, length and load. The same options and seed always write the same trace."
)]
pub struct SynthArgs {
    /// Output SWF trace (`-` for stdout).
    #[arg(short, long, value_name = "OUT.swf")]
    pub output: PathBuf,
    /// Processors of the machine (job widths are capped to it).
    #[arg(long, value_name = "M", default_value_t = SyntheticOptions::THESIS_PROCS, value_parser = super::engine_args::parse_generated_procs)]
    pub procs: u32,
    /// Number of jobs.
    #[arg(long, value_name = "N", default_value_t = SyntheticOptions::THESIS_JOBS,
          value_parser = super::engine_args::parse_job_count)]
    pub jobs: usize,
    /// Arrivals fall in [0, D).
    #[arg(long, value_name = "D", value_parser = parse_duration,
          default_value_t = Time::from_secs(i64::from(SyntheticOptions::THESIS_DAYS) * 86_400))]
    pub duration: Time,
    /// Offered load: Σ processors × run time / (M × D), in (0, 1].
    #[arg(long, value_name = "U", default_value_t = SyntheticOptions::THESIS_UTILIZATION, value_parser = parse_utilization)]
    pub utilization: f64,
    /// Seed of the generator.
    #[arg(long, value_name = "N", default_value_t = SyntheticOptions::DEFAULT_SEED)]
    pub seed: u64,
}

fn parse_utilization(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(u) if u > 0.0 && u <= 1.0 => Ok(u),
        _ => Err(format!("'{s}' is not an offered load in (0, 1], e.g. 0.38")),
    }
}

/// Arguments of `interstice bench swf`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Records in the generated trace.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=SyntheticOptions::MAX_JOBS as u64))]
    pub records: u64,
}

/// Run an SWF subcommand.
pub fn run(cmd: SwfCommand) -> anyhow::Result<()> {
    match cmd {
        SwfCommand::Stats(args) => stats(args),
        SwfCommand::Convert(args) => convert(args),
        SwfCommand::Inject(args) => inject(args),
        SwfCommand::Cat(args) => cat(args),
        SwfCommand::Synth(args) => synth(args),
    }
}

/// Open an input with a progress bar over its (compressed) bytes.
fn open(path: &Path, common: &CommonArgs) -> anyhow::Result<(Input, ProgressBar)> {
    let show = !common.quiet && io::stderr().is_terminal();
    let bar = if show {
        ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    let raw: Box<dyn Read + Send> = if path == Path::new("-") {
        Box::new(bar.wrap_read(io::stdin()))
    } else {
        let file = interstice_swf::input_file::open_regular(path)
            .with_context(|| super::exit::Unreadable(format!("cannot read {}", path.display())))?;
        if let Ok(meta) = file.metadata() {
            bar.set_length(meta.len());
        }
        Box::new(bar.wrap_read(file))
    };
    if show {
        let style =
            ProgressStyle::with_template("{spinner} {bytes}/{total_bytes} {bar:30} {bytes_per_sec} {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
    }
    Ok((input::from_reader(raw, path)?, bar))
}

fn extract_options(machine_procs: Option<u32>, hpc: &HpcArgs, common: &CommonArgs) -> ExtractOptions {
    ExtractOptions {
        machine_procs,
        clip: hpc.clip,
        clip_to_machine: false,
        walltime_factor: hpc.walltime_factor,
        mode: common.mode(),
    }
}

/// Load a whole workload (SWF or JSON) with a progress bar.
fn load(path: &Path, opts: &ExtractOptions, common: &CommonArgs) -> anyhow::Result<Workload> {
    let (input, bar) = open(path, common)?;
    let workload = interstice_swf::load_workload_from(input.reader, &input.name, opts)?;
    bar.finish_and_clear();
    if let Some(header) = &workload.header {
        report_header_notes(header, &input.name, common);
    }
    report_problems(&workload.stats, common);
    Ok(workload)
}

/// Show the notes on an SWF header's values (read in part, or left unset).
fn report_header_notes(header: &interstice_swf::Header, file: &str, common: &CommonArgs) {
    if common.quiet {
        return;
    }
    for note in &header.value_notes {
        eprintln!("interstice: note: {}", note.at(file));
    }
}

/// Lenient mode: say how many lines were skipped and show the first problems.
fn report_problems(stats: &ExtractStats, common: &CommonArgs) {
    if common.quiet || (stats.bad_lines == 0 && stats.extraction_problems() == 0) {
        return;
    }
    eprintln!(
        "interstice: warning: skipped {} bad line(s), {} job(s) wider than the machine, {} out-of-range value(s) \
         and {} repeated job number(s); first problems:",
        stats.bad_lines, stats.skipped_too_wide, stats.skipped_out_of_range, stats.skipped_duplicate_id
    );
    for p in &stats.problems {
        eprintln!("  {p}");
    }
}

/// The machine size for an output: asked, else the workload's, else the widest job.
fn machine_size(workload: &Workload, common: &CommonArgs) -> anyhow::Result<u32> {
    if let Some(m) = workload.machine_procs {
        return Ok(m);
    }
    let Some(widest) = workload.jobs.iter().map(|j| j.procs).max() else {
        bail!(
            "the workload has no jobs and does not say how many processors the machine has (pass --procs M)"
        );
    };
    if !common.quiet {
        eprintln!(
            "interstice: note: the trace does not give the machine size (MaxProcs); using the widest job, {widest}"
        );
    }
    Ok(widest)
}

fn create_output(path: &Path) -> anyhow::Result<Box<dyn Write>> {
    if path == Path::new("-") {
        return Ok(Box::new(BufWriter::new(io::stdout().lock())));
    }
    let file = File::create(path)
        .with_context(|| super::exit::WriteFailed(format!("cannot create {}", path.display())))?;
    Ok(Box::new(BufWriter::new(file)))
}

/// Two job streams, each in (submit, id) order, merged in that order.
fn write_json<J: std::borrow::Borrow<Job>>(
    path: &Path,
    jobs: impl IntoIterator<Item = J>,
    nb_res: u32,
    label: impl FnMut(&Job) -> Option<JobLabel>,
) -> anyhow::Result<()> {
    let out = create_output(path)?;
    batsim_json::write_labelled_workload(jobs, nb_res, out, label).with_context(|| {
        match path == Path::new("-") {
            true => super::exit::WriteFailed::stdout(),
            false => super::exit::WriteFailed(format!("cannot write {}", path.display())),
        }
    })
}

fn stats(args: StatsArgs) -> anyhow::Result<()> {
    let (mut input, bar) = open(&args.file, &args.common)?;
    let json_input = input::looks_like_json(&mut input.reader)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    // No width check here: statistics report header and observed sizes side by side.
    let opts = ExtractOptions {
        machine_procs: Some(u32::MAX),
        mode: args.common.mode(),
        ..ExtractOptions::new()
    };
    let stats = if json_input {
        let workload = batsim_json::read_workload(input.reader, &input.name, &opts)?;
        let nb_res = batsim_nb_res(&args.file)?;
        interstice_swf::stats::workload_stats(&workload.jobs, &workload.stats, nb_res)
    } else {
        let reader = SwfReader::new(input.reader, input.name.clone(), opts.mode)?;
        bar.suspend(|| report_header_notes(reader.header(), &input.name, &args.common));
        let header_procs = reader.header().machine_procs();
        let mut stream = JobStream::new(reader, &opts);
        let mut builder = StatsBuilder::new();
        for job in stream.by_ref() {
            builder.add(&job?);
        }
        builder.finish(&stream.stats(), header_procs)
    };
    bar.finish_and_clear();
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&stats)?)?;
    } else {
        print_stats(&args.file, &stats)?;
    }
    Ok(())
}

/// `nb_res` of a Batsim workload file (read again: stats ignore it when extracting).
fn batsim_nb_res(path: &Path) -> anyhow::Result<Option<u64>> {
    if path == Path::new("-") {
        return Ok(None);
    }
    let input = input::open(path)?;
    let value: serde_json::Value = serde_json::from_reader(input.reader)?;
    Ok(value.get("nb_res").and_then(serde_json::Value::as_u64))
}

fn print_stats(path: &Path, s: &WorkloadStats) -> anyhow::Result<()> {
    let e = &s.extraction;
    let opt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v}"));
    outln!("file:               {}", path.display())?;
    outln!("records:            {}", e.records)?;
    outln!("jobs:               {}", e.jobs)?;
    outln!(
        "skipped:            {} (no submit {}, run time ≤ 0 {}, processors ≤ 0 {}, too wide {}, out of range {}, \
         repeated job number {}, bad lines {})",
        s.skipped,
        e.skipped_no_submit,
        e.skipped_runtime,
        e.skipped_procs,
        e.skipped_too_wide,
        e.skipped_out_of_range,
        e.skipped_duplicate_id,
        e.bad_lines
    )?;
    outln!(
        "machine processors: {} (header {}, widest job {})",
        s.max_procs.map_or("-".into(), |v| v.to_string()),
        s.header_max_procs.map_or("-".into(), |v| v.to_string()),
        s.observed_max_procs.map_or("-".into(), |v| v.to_string())
    )?;
    outln!(
        "submits:            {} .. {} (span {} s = {:.1} days)",
        opt(s.first_submit),
        opt(s.last_submit),
        s.span,
        s.span / 86400.0
    )?;
    outln!(
        "offered load:       {}",
        s.utilization
            .map_or("-".into(), |u| format!("{:.1} %", u * 100.0))
    )?;
    let dist = |d: &interstice_swf::stats::Distribution| {
        format!(
            "min {} median {} p90 {} max {}",
            opt(d.min),
            opt(d.median),
            opt(d.p90),
            opt(d.max)
        )
    };
    outln!("processors per job: {}", dist(&s.procs))?;
    outln!("run time (s):       {}", dist(&s.runtime))?;
    outln!(
        "no walltime:         {} jobs (no requested time: Batsim walltime -1, planned with the run time)",
        e.walltime_from_runtime
    )?;
    if e.runtime_from_walltime > 0 {
        outln!(
            "run time = walltime: {} jobs (profile without a delay)",
            e.runtime_from_walltime
        )?;
    }
    for p in &e.problems {
        outln!("problem:            {p}")?;
    }
    Ok(())
}

fn convert(args: ConvertArgs) -> anyhow::Result<()> {
    let opts = extract_options(args.procs, &args.hpc, &args.common);
    let workload = load(&args.file, &opts, &args.common)?;
    let nb_res = machine_size(&workload, &args.common)?;
    write_json(&args.output, &workload.jobs, nb_res, |job| {
        workload.labels.get(&job.id).cloned()
    })?;
    if !args.common.quiet {
        eprintln!(
            "interstice: wrote {} jobs on {} processors to {} (skipped {}, clipped {})",
            workload.jobs.len(),
            nb_res,
            args.output.display(),
            workload.stats.skipped(),
            workload.stats.clipped
        );
    }
    Ok(())
}

fn inject(args: InjectArgs) -> anyhow::Result<()> {
    let Some(cloud_procs) = args.cloud_procs else {
        return Err(super::flags::Usage(super::flags::INJECT_NEEDS_CLOUD_PROCS.to_string()).into());
    };
    let opts = extract_options(args.procs, &args.hpc, &args.common);
    let workload = load(&args.file, &opts, &args.common)?;
    let nb_res = machine_size(&workload, &args.common)?;
    let inject = InjectOptions {
        interval: args.interval,
        procs: cloud_procs,
        walltime: args.walltime,
        runtime: args.runtime.unwrap_or(RuntimeSpec::WALLTIME),
        slack: args.slack,
        alpha: args.alpha,
        seed: args.seed,
    };
    inject.validate()?;
    check_cloud_fits(&inject.procs, CloudRoom::Machine(nb_res))?;
    let span = injection_span(&workload.jobs);
    let from = args
        .from
        .map(Time::from_secs_f64)
        .or(span.map(|(first, _)| first));
    let to = args.to.map(Time::from_secs_f64).or(span.map(|(_, last)| last));
    let (Some(from), Some(to)) = (from, to) else {
        bail!("the workload has no HPC jobs to take the time span from (pass --from T --to T)");
    };
    if to < from {
        bail!("--to {to} is before --from {from}");
    }
    let first_id = first_injected_id(&workload.jobs);
    // Streamed: the cloud jobs are generated while they are written, merged
    // in (submit, id) order with the trace's jobs (already in that order).
    let n_hpc = workload
        .jobs
        .iter()
        .filter(|job| job.kind == JobKind::Hpc)
        .count();
    let n_earlier = workload.jobs.len() - n_hpc;
    let n_cloud = std::cell::Cell::new(0u64);
    let cloud = inject_cloud_jobs(&inject, from, to, first_id).inspect(|_| n_cloud.set(n_cloud.get() + 1));
    // With a class file every cloud job written gets a class and tenant, by
    // the rule `replay --eviction` draws them with (same file, same order).
    let spec = match &args.qos {
        Some(path) => {
            let spec = super::qos::area_spec(path, nb_res)?;
            spec.check_labels(&workload.labels, &args.file, Some(path))?;
            Some(spec)
        }
        None => None,
    };
    let mut draw = spec.as_ref().map(QosSpec::draw);
    let labels = &workload.labels;
    write_json(
        &args.output,
        merge_by_submit(workload.jobs, cloud),
        nb_res,
        |job| {
            let given = labels.get(&job.id);
            match &mut draw {
                Some(draw) if job.kind == JobKind::Cloud => Some(draw.next_label(given)),
                _ => given.cloned(),
            }
        },
    )?;
    let n_cloud = n_cloud.get();
    if !args.common.quiet {
        eprintln!(
            "interstice: wrote {n_hpc} HPC and {n_cloud} cloud jobs{} on {nb_res} processors to {}",
            match n_earlier {
                0 => String::new(),
                n => format!(" (and the workload's {n} cloud jobs)"),
            },
            args.output.display()
        );
    }
    Ok(())
}

fn cat(args: CatArgs) -> anyhow::Result<()> {
    let (input, bar) = open(&args.file, &args.common)?;
    let mut reader = SwfReader::new(input.reader, input.name, args.common.mode())?;
    let stdout = io::stdout().lock();
    let mut out = BufWriter::with_capacity(256 * 1024, stdout);
    let write_error = |err: io::Error| anyhow::Error::new(err).context(super::exit::WriteFailed::stdout());
    reader.header().write_to(&mut out).map_err(write_error)?;
    for rec in reader.by_ref() {
        rec?.write_to(&mut out).map_err(write_error)?;
    }
    out.flush().map_err(write_error)?;
    bar.finish_and_clear();
    let bad = reader.bad_lines();
    if bad.count > 0 && !args.common.quiet {
        eprintln!(
            "interstice: warning: skipped {} bad line(s); first problems:",
            bad.count
        );
        for e in &bad.first {
            eprintln!("  {e}");
        }
    }
    Ok(())
}

fn synth(args: SynthArgs) -> anyhow::Result<()> {
    if args.duration <= Time::ZERO {
        bail!(super::flags::Usage(
            "--duration must be positive, e.g. 30d".to_string()
        ));
    }
    let jobs = hpc_workload(&SyntheticOptions {
        procs: args.procs,
        jobs: args.jobs,
        duration: args.duration,
        utilization: args.utilization,
        seed: args.seed,
        first_id: 1,
    });
    let header = interstice_swf::Header {
        version: Some("2.2".into()),
        computer: Some("interstice swf synth (PIK-IPLEX-like)".into()),
        conversion: Some(format!(
            "interstice swf synth --procs {} --jobs {} --duration {} --utilization {} --seed {}",
            args.procs,
            args.jobs,
            args.duration.as_secs_f64(),
            args.utilization,
            args.seed
        )),
        max_jobs: Some(jobs.len() as u64),
        max_records: Some(jobs.len() as u64),
        max_procs: Some(u64::from(args.procs)),
        ..Default::default()
    };
    let records: Vec<interstice_swf::Record> = jobs.iter().map(interstice_swf::record_of).collect();
    let failed = || match args.output == Path::new("-") {
        true => super::exit::WriteFailed::stdout(),
        false => super::exit::WriteFailed(format!("cannot write {}", args.output.display())),
    };
    let mut out = BufWriter::new(create_output(&args.output)?);
    interstice_swf::writer::write_trace(&header, &records, &mut out)
        .and_then(|()| out.flush())
        .with_context(failed)?;
    if args.output != Path::new("-") {
        eprintln!(
            "interstice: wrote {} jobs on {} processors to {}",
            records.len(),
            args.procs,
            args.output.display()
        );
    }
    Ok(())
}

/// A deterministic synthetic trace in the layout of the archive's traces.
fn synthetic_trace(records: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(7);
    let mut out = Vec::with_capacity(records as usize * 96);
    let header = interstice_swf::Header {
        version: Some("2.2".into()),
        computer: Some("interstice bench".into()),
        max_procs: Some(1024),
        max_jobs: Some(records),
        ..Default::default()
    };
    let mut submit = 0.0;
    let mut recs = Vec::with_capacity(1);
    for job in 1..=records {
        submit += (rng.next_u64() % 600) as f64;
        let procs = 1i64 << (rng.next_u64() % 11);
        let run = (rng.next_u64() % 86_400) as f64;
        let line = interstice_swf::Record {
            job,
            submit: Some(submit),
            wait: Some((rng.next_u64() % 10_000) as f64),
            run_time: Some(run),
            allocated_procs: Some(procs),
            avg_cpu_time: if job % 3 == 0 { Some(run * 0.9) } else { None },
            used_memory: None,
            requested_procs: Some(procs),
            requested_time: Some(run * 2.0 + 60.0),
            requested_memory: None,
            status: Some(1),
            user: Some((rng.next_u64() % 200) as i64),
            group: Some((rng.next_u64() % 20) as i64),
            executable: None,
            queue: Some(1),
            partition: None,
            preceding_job: None,
            think_time: None,
        };
        recs.clear();
        recs.push(line);
        if job == 1 {
            write_trace(&header, &recs, &mut out).expect("write to memory");
        } else {
            recs[0].write_to(&mut out).expect("write to memory");
        }
    }
    out
}

/// Run the SWF benchmark.
pub fn bench(args: BenchArgs) -> anyhow::Result<()> {
    if args.records == 0 {
        bail!("--records must be at least 1");
    }
    let trace = synthetic_trace(args.records);
    let mb = trace.len() as f64 / 1e6;
    let mut best = f64::INFINITY;
    let mut checksum = 0u64;
    for _ in 0..3 {
        let start = Instant::now();
        let reader = SwfReader::new(&trace[..], "bench.swf", Strictness::Strict)?;
        let mut n = 0u64;
        for rec in reader {
            let rec = rec?;
            n += 1;
            checksum = checksum.wrapping_add(rec.job);
        }
        best = best.min(start.elapsed().as_secs_f64());
        if n != args.records {
            bail!("parsed {n} records out of {}", args.records);
        }
    }
    let start = Instant::now();
    let reader = SwfReader::new(&trace[..], "bench.swf", Strictness::Strict)?;
    let mut jobs = 0u64;
    for job in JobStream::new(reader, &ExtractOptions::new()) {
        jobs += u64::from(job?.procs > 0);
    }
    let extract = start.elapsed().as_secs_f64();
    std::hint::black_box(checksum);
    outln!("METRIC:swf_bench_records:{}:records", args.records)?;
    outln!(
        "METRIC:swf_parse_records_per_second:{:.0}:records/s",
        args.records as f64 / best
    )?;
    outln!("METRIC:swf_parse_megabytes_per_second:{:.1}:MB/s", mb / best)?;
    outln!(
        "METRIC:swf_extract_jobs_per_second:{:.0}:jobs/s",
        jobs as f64 / extract
    )?;
    Ok(())
}
