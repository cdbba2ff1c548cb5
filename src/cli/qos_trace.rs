//! The request traces of the service-class studies (`docs/qos.md`,
//! "Request traces"): `interstice qos generate` (Google-like samples from
//! the generator's parameters and a seed) and `interstice qos
//! convert-google` (Google's 2011 task and machine events to the CSV
//! format). Composition only: the formats and the generator are
//! `interstice_swf::{request_trace, google_trace, google_like}`.

use super::exit::{Unreadable, WriteFailed};
use anyhow::Context;
use interstice_swf::google_like::{self, GeneratorParams};
use interstice_swf::google_trace::{self, GoogleTaskEvents};
use interstice_swf::request_trace::{self, TraceRequest};
use interstice_swf::SwfError;
use std::path::{Path, PathBuf};

/// `interstice qos generate`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Example: interstice qos generate --seed 1 --samples 10 -o samples/")]
pub struct GenerateArgs {
    /// The generator's parameters: a YAML file with a `sample:` section (a study file, or a
    /// params.yaml this command wrote); default: the documented Google-like stand-in.
    #[arg(long, value_name = "FILE")]
    pub params: Option<PathBuf>,
    /// The first sample's seed; sample k (from 1) uses SEED + k - 1.
    #[arg(long, value_name = "S")]
    pub seed: u64,
    /// How many samples.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=999))]
    pub samples: u32,
    /// Output directory: sample-01.csv…, hosts-01.csv…, params.yaml (new or empty, or any with --force).
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: PathBuf,
    /// Write into a non-empty DIR.
    #[arg(long)]
    pub force: bool,
}

/// `interstice qos convert-google`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example: interstice qos convert-google --task-events task_events/ --machine-events machine_events/part-00000-of-00001.csv.gz -o trace.csv"
)]
pub struct ConvertGoogleArgs {
    /// task_events part files, or directories of them (read in name order), of clusterdata-2011-2.
    #[arg(long, value_name = "DIR_OR_FILES", num_args = 1.., required = true)]
    pub task_events: Vec<PathBuf>,
    /// A machine_events file: its machines' capacities are written as a host pool (--hosts-output).
    #[arg(long, value_name = "FILE")]
    pub machine_events: Option<PathBuf>,
    /// The request trace to write (CSV).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub out: PathBuf,
    /// Where the host pool goes (default: beside the trace, `NAME.hosts.csv`).
    #[arg(long = "hosts-output", value_name = "FILE", requires = "machine_events")]
    pub hosts: Option<PathBuf>,
}

/// What `params.yaml` holds: the seeds and the parameters, itself a valid `--params` file.
#[derive(serde::Serialize)]
struct Echo<'a> {
    seed: u64,
    samples: u32,
    sample: &'a GeneratorParams,
}

/// Run `interstice qos generate`.
pub fn generate(args: GenerateArgs) -> anyhow::Result<()> {
    let params = match &args.params {
        Some(path) => {
            let text =
                interstice_swf::input_file::read_text(path, interstice_swf::input_file::MAX_TEXT_BYTES)
                    .with_context(|| Unreadable(format!("cannot read --params {}", path.display())))?;
            GeneratorParams::from_yaml(&text, &path.display().to_string()).map_err(SwfError::Option)?
        }
        None => GeneratorParams::default(),
    };
    super::flags::with_out_dir(Some(&args.out), args.force, || write_samples(&args, &params))
}

/// The samples, their host pools and `params.yaml` into `args.out`, a line per sample on stdout.
fn write_samples(args: &GenerateArgs, params: &GeneratorParams) -> anyhow::Result<()> {
    let out = &args.out;
    std::fs::create_dir_all(out).with_context(|| WriteFailed(format!("cannot create {}", out.display())))?;
    let echo = Echo {
        seed: args.seed,
        samples: args.samples,
        sample: params,
    };
    let yaml = serde_yaml::to_string(&echo).context("cannot write the parameters")?;
    write(&out.join("params.yaml"), |path| std::fs::write(path, &yaml))?;
    outln!("sample  seed  users  requests  instances  gold%  silver%  bronze%  services")?;
    for k in 1..=args.samples {
        let seed = args.seed.wrapping_add(u64::from(k) - 1);
        let rows = google_like::generate(params, seed);
        write(&out.join(format!("sample-{k:02}.csv")), |path| {
            request_trace::write_file(path, &rows)
        })?;
        let hosts = google_like::hosts(params, seed);
        write(&out.join(format!("hosts-{k:02}.csv")), |path| {
            request_trace::write_hosts(path, &hosts)
        })?;
        let users = google_like::sampled_users(params, seed).len();
        print_sample(k, seed, users, &rows)?;
    }
    Ok(())
}

/// One sample's line: its size and its class shares (of instances).
fn print_sample(k: u32, seed: u64, users: usize, rows: &[TraceRequest]) -> anyhow::Result<()> {
    let instances: u64 = rows.iter().map(|r| u64::from(r.instances)).sum();
    let share = |class: &str| {
        let n: u64 = rows
            .iter()
            .filter(|r| r.class == class)
            .map(|r| u64::from(r.instances))
            .sum();
        100.0 * n as f64 / instances.max(1) as f64
    };
    let services = rows.iter().filter(|r| r.duration.is_none()).count();
    outln!(
        "{k:>6}  {seed:>4}  {users:>5}  {:>8}  {instances:>9}  {:>5.1}  {:>7.1}  {:>7.1}  {services:>8}",
        rows.len(),
        share("gold"),
        share("silver"),
        share("bronze")
    )
}

/// Write `path` with `f`, an error naming the file.
fn write(path: &Path, f: impl FnOnce(&Path) -> std::io::Result<()>) -> anyhow::Result<()> {
    f(path).with_context(|| WriteFailed(format!("cannot write {}", path.display())))
}

/// Run `interstice qos convert-google`.
pub fn convert_google(args: ConvertGoogleArgs) -> anyhow::Result<()> {
    let files = google_trace::part_files(&args.task_events)?;
    let mut events = GoogleTaskEvents::new();
    for file in &files {
        events.read_file(file)?;
    }
    let pool = args
        .machine_events
        .as_deref()
        .map(google_trace::read_machine_events)
        .transpose()?;
    let (rows, report) = events.finish();
    write(&args.out, |path| request_trace::write_file(path, &rows))?;
    outln!(
        "{} requests from {} tasks ({} events in {} files) into {}",
        rows.len(),
        report.tasks,
        report.events,
        files.len(),
        args.out.display()
    )?;
    outln!(
        "kept: {} finished, {} killed, {} running at the end (services)",
        report.finished,
        report.killed,
        report.running_at_end
    )?;
    outln!(
        "dropped: {} evicted, {} failed, {} lost at their end; {} never ran; {} without a request; {} without a priority",
        report.dropped_evicted,
        report.dropped_failed,
        report.dropped_lost,
        report.dropped_never_ran,
        report.dropped_no_request,
        report.dropped_no_priority
    )?;
    if let Some(pool) = pool {
        let hosts = args.hosts.clone().unwrap_or_else(|| hosts_beside(&args.out));
        write(&hosts, |path| request_trace::write_hosts(path, &pool.hosts))?;
        outln!(
            "{} hosts into {} ({} machines removed at some point, {} without a capacity left out)",
            pool.hosts.len(),
            hosts.display(),
            pool.removed,
            pool.unknown_capacity
        )?;
    }
    Ok(())
}

/// `trace.csv` → `trace.hosts.csv`.
fn hosts_beside(out: &Path) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or("trace".into(), |s| s.to_string_lossy().into_owned());
    out.with_file_name(format!("{stem}.hosts.csv"))
}
