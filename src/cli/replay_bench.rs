//! The engine-speed benchmarks of the replay path (issue 13), each timing
//! what a user runs, parsing and output included:
//!
//! - `interstice bench hpc`: HPC-only replays of a generated 50,000-job,
//!   2,000-processor SWF file, in this process through [`replay::replay`]
//!   (the code of `interstice replay`), best of `--repeat`.
//! - `interstice bench scaling`: the thesis's setting on a real trace (the
//!   machine is the convergence area, a cloud job every 10 s), the trace
//!   repeated 1, 2, 4, 8 times, each run a child `interstice replay` under
//!   `interstice bench measure` with a timeout.
//! - `interstice bench measure`: one `interstice` command in a child process,
//!   its wall and CPU seconds and its own peak resident memory.
//!
//! Lines are `METRIC:name:value:unit`; a run killed at its timeout prints
//! `timeout` as its value.

use super::engine_args::{
    parse_admission, parse_depth, parse_factor, parse_policy, parse_scheduling, parse_seconds, EngineArgs,
};
use super::experiment_args::CloudArgs;
use super::replay::{self, ReplayArgs, Replayed};
use anyhow::{bail, Context};
use clap::Parser;
use indicatif::ProgressBar;
use interstice_batsim::sim::synthetic::{hpc_workload, SyntheticOptions};
use interstice_core::{Admission, Policy, ReservationDepth, Scheduling, Shown, Time};
use interstice_swf::{arrivals, defaults, load_trace, record_of, write_trace, Header};
use std::ffi::OsString;
use std::io::{BufWriter, Write};
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Arguments of `interstice bench hpc`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "The trace is the synthetic month of `bench replay` (PIK-IPLEX-like: 1–1,024 \
    processors, mostly ≤ 16, run times from minutes to days) at the size of a real 52,000-job, \
    2,004-processor trace, written once as a plain SWF file in a temporary directory. Its default load \
    is 75 %, not PIK-IPLEX's 38 %, at which queues stay nearly empty: at 75 % they form as on a busy \
    machine (FCFS's jobs wait hours). Each timed run is `interstice replay TRACE --policy P --out DIR` \
    in this process: parse, extract, simulate, write jobs.csv and summary.json."
)]
pub struct HpcArgs {
    /// HPC jobs of the generated trace.
    #[arg(long, default_value = "50000", value_parser = super::engine_args::parse_job_count)]
    pub jobs: usize,
    /// Processors of the machine (the trace's MaxProcs).
    #[arg(long, default_value = "2000", value_parser = super::engine_args::parse_generated_procs)]
    pub procs: u32,
    /// Length of the generated trace, days.
    #[arg(long, default_value = "30", value_parser = super::engine_args::parse_generated_days)]
    pub days: u32,
    /// Offered load of the generated trace: Σ processors × run time / (procs × days).
    #[arg(long, value_name = "U", value_parser = parse_factor, default_value = "0.75")]
    pub utilization: f64,
    /// Policies to time, comma-separated.
    #[arg(long, value_parser = parse_policy, value_delimiter = ',', default_value = "easy,fcfs,conservative,convergence")]
    pub policies: Vec<Policy>,
    /// Replays per policy; the fastest is reported.
    #[arg(long, value_name = "N", default_value = "3")]
    pub repeat: NonZeroU32,
    /// Seed of the generated trace.
    #[arg(long, default_value_t = SyntheticOptions::DEFAULT_SEED)]
    pub seed: u64,
}

/// A directory under the system's temporary directory, removed with everything in it when dropped.
pub(super) struct Scratch(pub(super) PathBuf);

impl Scratch {
    /// An empty `interstice-bench-{what}-{pid}` directory (a stale one is emptied first).
    pub(super) fn new(what: &str) -> anyhow::Result<Scratch> {
        let dir = std::env::temp_dir().join(format!("interstice-bench-{what}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Write `jobs` as an SWF trace of a `procs`-processor machine (the header's `MaxProcs`).
pub(super) fn write_swf(path: &Path, jobs: &[interstice_core::Job], procs: u32) -> anyhow::Result<()> {
    let header = Header {
        version: Some("2.2".into()),
        computer: Some("interstice bench hpc".into()),
        max_procs: Some(u64::from(procs)),
        max_jobs: Some(jobs.len() as u64),
        ..Header::default()
    };
    let records: Vec<_> = jobs.iter().map(record_of).collect();
    let mut out = BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
    );
    write_trace(&header, &records, &mut out)
        .and_then(|()| out.flush())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Generate `bench hpc`'s synthetic workload (`hpc_workload`, the thesis's
/// options but these) and write it to `path` as the SWF trace of a
/// `procs`-processor machine; the number of jobs written.
pub(super) fn write_generated(
    path: &Path,
    procs: u32,
    jobs: usize,
    duration: Time,
    utilization: f64,
    seed: u64,
) -> anyhow::Result<usize> {
    let generated = hpc_workload(&SyntheticOptions {
        procs,
        jobs,
        duration,
        utilization,
        ..SyntheticOptions::thesis(seed)
    });
    write_swf(path, &generated, procs)?;
    Ok(generated.len())
}

/// What `interstice replay TRACE [--procs P]` loads: the whole trace, strict,
/// no clipping, the default walltime factor.
pub(super) fn replay_spec(trace: PathBuf, procs: Option<u32>) -> interstice_swf::TraceSpec {
    interstice_swf::TraceSpec {
        workload: trace,
        procs,
        conv: None,
        walltime_factor: defaults::WALLTIME_FACTOR,
        from: None,
        until: None,
        clip: None,
        lenient: false,
        repeat: NonZeroU32::MIN,
    }
}

/// Run `interstice replay … --policy POLICY --out OUT` in this process
/// `repeat` times (parse, extract, simulate, write jobs.csv and
/// summary.json): the fastest run's wall seconds and its outcome.
pub(super) fn time_replay(
    spec: &interstice_swf::TraceSpec,
    policy: Policy,
    repeat: NonZeroU32,
    out: &Path,
) -> anyhow::Result<(f64, Replayed)> {
    let engine = EngineArgs {
        policy: Some(policy),
        ..EngineArgs::default()
    };
    let mut best: Option<(f64, Replayed)> = None;
    for _ in 0..repeat.get() {
        let started = Instant::now();
        let done = replay::replay(spec, &engine, None, out, true, &ProgressBar::hidden())
            .with_context(|| format!("replay with policy {policy} failed"))?;
        let wall = started.elapsed().as_secs_f64();
        if best.as_ref().map_or(true, |(fastest, _)| wall < *fastest) {
            best = Some((wall, done));
        }
    }
    Ok(best.expect("a NonZeroU32 repeat runs at least once"))
}

/// Run `interstice bench hpc`.
pub fn bench_hpc(args: HpcArgs) -> anyhow::Result<()> {
    if args.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let scratch = Scratch::new("hpc")?;
    let trace = scratch.0.join("trace.swf");
    let out = scratch.0.join("out");
    let generated = write_generated(
        &trace,
        args.procs,
        args.jobs,
        Time::from_secs(i64::from(args.days) * 86_400),
        args.utilization,
        args.seed,
    )?;
    let bytes = std::fs::metadata(&trace).map(|meta| meta.len()).unwrap_or(0);
    outln!("METRIC:hpc_jobs:{generated}:jobs")?;
    outln!("METRIC:hpc_procs:{}:procs", args.procs)?;
    outln!("METRIC:hpc_swf_megabytes:{:.1}:MB", bytes as f64 / 1e6)?;

    // What `interstice replay TRACE --policy P --out DIR` runs.
    let spec = replay_spec(trace, None);
    for policy in &args.policies {
        let (wall, done) = time_replay(&spec, *policy, args.repeat, &out)?;
        if done.jobs != args.jobs as u64 || done.summary.jobs != done.jobs {
            bail!(
                "policy {policy}: {} jobs generated, {} read back from the SWF file, {} in the summary",
                args.jobs,
                done.jobs,
                done.summary.jobs
            );
        }
        let name = policy.name();
        outln!("METRIC:hpc_{name}_wall_seconds:{wall:.4}:s")?;
        outln!("METRIC:hpc_{name}_load_seconds:{:.4}:s", done.load_seconds)?;
        outln!(
            "METRIC:hpc_{name}_jobs_per_second:{:.0}:jobs/s",
            done.jobs as f64 / wall.max(1e-9)
        )?;
        outln!("METRIC:hpc_{name}_makespan:{:.0}:s", done.summary.hpc_makespan)?;
        outln!(
            "METRIC:hpc_{name}_mean_wait:{:.1}:s",
            Shown(done.summary.mean_wait)
        )?;
    }
    Ok(())
}

/// Arguments of `interstice bench scaling`.
#[derive(clap::Args, Debug)]
#[command(
    mut_arg("cloud_procs", |arg| arg.default_value("2")),
    mut_arg("cloud_runtime", |arg| arg.default_value("18")),
    mut_arg("slack", |arg| arg.default_value("1.25")),
    after_help = "Each (procs, policy, repeats) cell runs `interstice replay TRACE --procs M --clip \
    --policy P --repeat R --cloud-interval 10 --cloud-procs 2 --cloud-runtime 18 --slack 1.25 …` \
    in a child process (under `interstice bench measure`, so its peak memory is its own) and \
    prints its wall seconds, CPU seconds, jobs per second and peak resident memory; \
    scaling_baseline_peak_memory is that of an interstice process doing nothing. A run past --timeout \
    is killed and its wall seconds are `timeout`; cells of the same procs and policy with more \
    repeats are then not run and reported as `timeout` too. The defaults of --cloud-procs, \
    --cloud-runtime and --slack are issue 13's setting (2 processors, 18 s, 1.25), not replay's."
)]
pub struct ScalingArgs {
    /// The HPC trace (SWF or Batsim JSON), e.g. ../shared/data/KTH-SP2-1996-2.1-cln.swf.gz.
    #[arg(long, value_name = "FILE")]
    pub trace: PathBuf,
    /// Machine sizes, comma-separated; the machine is the convergence area and wider HPC jobs are
    /// clipped to it (`replay --procs M --clip`), as the thesis's chapter 6 does.
    #[arg(long, value_name = "M[,M…]", value_delimiter = ',', default_value = "10,40",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub procs: Vec<u32>,
    /// Policies, comma-separated.
    #[arg(long, value_parser = parse_policy, value_delimiter = ',', default_value = "conservative,convergence")]
    pub policies: Vec<Policy>,
    /// Copies of the trace replayed back to back (`replay --repeat`), comma-separated.
    #[arg(long, value_name = "R[,R…]", value_delimiter = ',', default_value = "1,2,4,8")]
    pub repeats: Vec<NonZeroU32>,
    /// Only the trace's first S seconds (before repeating it; `replay --until`).
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub until: Option<f64>,
    /// Kill a run after S seconds and report it as `timeout` (default: no limit).
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// Seconds between two cloud jobs.
    #[arg(long, value_name = "S", value_parser = parse_seconds, default_value_t = defaults::CLOUD_INTERVAL_SECS)]
    pub cloud_interval: f64,
    /// The cloud jobs (defaults: issue 13's setting).
    #[command(flatten)]
    pub cloud: CloudArgs,
    /// What to do with a cloud job predicted to miss its SLO (default: replay's).
    #[arg(long, value_parser = parse_admission)]
    pub admission: Option<Admission>,
    /// How cloud jobs share the area with HPC jobs, `hpc-first` or `shared-queue` (default: replay's).
    #[arg(long, value_parser = parse_scheduling)]
    pub scheduling: Option<Scheduling>,
    /// How many queued jobs hold a reservation, `K` or `unlimited` (default: replay's, unlimited).
    #[arg(long, value_name = "K|unlimited", value_parser = parse_depth)]
    pub reservation_depth: Option<ReservationDepth>,
}

/// One run of `bench scaling`.
#[derive(Clone, Copy, Debug)]
struct Cell {
    procs: u32,
    policy: Policy,
    repeat: NonZeroU32,
}

impl Cell {
    fn name(&self) -> String {
        format!(
            "scaling_{}_procs{}_repeat{}",
            self.policy.name(),
            self.procs,
            self.repeat
        )
    }
}

/// The `interstice replay` arguments of `cell`, writing into `out`.
fn replay_argv(args: &ScalingArgs, cell: Cell, out: &Path) -> Vec<OsString> {
    let mut argv: Vec<OsString> = vec!["replay".into(), args.trace.clone().into()];
    let mut push = |flag: &str, value: String| argv.extend([flag.into(), value.into()]);
    push("--procs", cell.procs.to_string());
    push("--policy", cell.policy.name().to_string());
    push("--repeat", cell.repeat.to_string());
    push("--cloud-interval", args.cloud_interval.to_string());
    if let Some(until) = args.until {
        push("--until", until.to_string());
    }
    if let Some(admission) = args.admission {
        push("--admission", admission.name().to_string());
    }
    if let Some(scheduling) = args.scheduling {
        push("--scheduling", scheduling.name().to_string());
    }
    if let Some(depth) = args.reservation_depth {
        push("--reservation-depth", depth.to_string());
    }
    argv.extend(args.cloud.to_args().into_iter().map(OsString::from));
    argv.extend([
        "--clip".into(),
        "--quiet".into(),
        // One scratch directory for every cell, each run overwriting the last.
        "--force".into(),
        "--out".into(),
        out.as_os_str().to_owned(),
    ]);
    argv
}

/// `interstice replay` parsed from `argv` (without the program name) by its
/// own flags, to count the jobs of a run the way the child will see them.
fn parse_replay(argv: &[OsString]) -> anyhow::Result<ReplayArgs> {
    #[derive(Parser, Debug)]
    enum Interstice {
        Replay(ReplayArgs),
    }
    let Interstice::Replay(args) =
        Interstice::try_parse_from(std::iter::once("interstice".into()).chain(argv.iter().cloned()))
            .context("bad replay arguments")?;
    Ok(args)
}

/// HPC jobs and all jobs (with the cloud jobs) that `replay` with `argv` replays.
fn count_jobs(argv: &[OsString]) -> anyhow::Result<(u64, u64)> {
    let args = parse_replay(argv)?;
    let trace = load_trace(&args.trace.spec(args.engine.conv))?;
    let cloud = args.cloud_interval.map(|interval| args.cloud.spec(interval));
    let (_, jobs) = arrivals(&trace, cloud.as_ref())?;
    Ok((trace.jobs.len() as u64, jobs))
}

/// What [`measure_child`] saw of one `bench measure` run.
#[derive(Debug, PartialEq)]
enum Measured {
    /// It finished.
    Done { wall: f64, cpu: f64, peak_memory: u64 },
    /// It was killed at its timeout.
    Timeout,
}

/// The value of `METRIC:{name}:VALUE:unit` in `stdout`.
fn metric<'t>(stdout: &'t str, name: &str) -> Option<&'t str> {
    stdout.lines().find_map(|line| {
        let rest = line
            .strip_prefix("METRIC:")?
            .strip_prefix(name)?
            .strip_prefix(':')?;
        rest.split(':').next()
    })
}

/// Run `interstice bench measure [--timeout S] -- ARGV` and read its lines.
fn measure_child(argv: &[OsString], timeout: Option<f64>, quiet: bool) -> anyhow::Result<Measured> {
    let exe = std::env::current_exe().context("cannot find the interstice executable")?;
    let mut command = Command::new(&exe);
    command.args(["bench", "measure"]);
    if let Some(timeout) = timeout {
        command.args(["--timeout", &timeout.to_string()]);
    }
    command.arg("--").args(argv).stdin(Stdio::null());
    if quiet {
        command.stderr(Stdio::null());
    }
    let output = command
        .output()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "`interstice bench measure -- {}` failed ({})",
            shown(argv),
            output.status
        );
    }
    let value = |name: &str| {
        metric(&stdout, name).with_context(|| format!("`bench measure` printed no {name}:\n{stdout}"))
    };
    if value("measure_wall_seconds")? == "timeout" {
        return Ok(Measured::Timeout);
    }
    let number = |name: &str| -> anyhow::Result<f64> {
        let text = value(name)?;
        text.parse()
            .with_context(|| format!("`bench measure` printed {name} {text:?}"))
    };
    Ok(Measured::Done {
        wall: number("measure_wall_seconds")?,
        cpu: number("measure_cpu_seconds")?,
        peak_memory: number("measure_peak_memory")? as u64,
    })
}

fn shown(argv: &[OsString]) -> String {
    argv.iter()
        .map(|arg| arg.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Run `interstice bench scaling`.
pub fn bench_scaling(args: ScalingArgs) -> anyhow::Result<()> {
    if args.procs.is_empty() || args.policies.is_empty() || args.repeats.is_empty() {
        bail!("--procs, --policies and --repeats each need at least one value");
    }
    let scratch = Scratch::new("scaling")?;
    let out = scratch.0.join("out");

    match measure_child(&["--version".into()], None, true)? {
        Measured::Done { peak_memory, .. } => {
            outln!("METRIC:scaling_baseline_peak_memory:{peak_memory}:bytes")?;
        }
        Measured::Timeout => unreachable!("no timeout was given"),
    }
    // The jobs of each (procs, repeats), whatever the policy.
    let mut counts = std::collections::HashMap::new();
    for &procs in &args.procs {
        for &repeat in &args.repeats {
            let cell = Cell {
                procs,
                policy: args.policies[0],
                repeat,
            };
            let (hpc, all) = count_jobs(&replay_argv(&args, cell, &out))?;
            outln!("METRIC:scaling_procs{procs}_repeat{repeat}_hpc_jobs:{hpc}:jobs")?;
            outln!("METRIC:scaling_procs{procs}_repeat{repeat}_jobs:{all}:jobs")?;
            counts.insert((procs, repeat), all);
        }
    }
    for &procs in &args.procs {
        for &policy in &args.policies {
            // The fewest repeats that ran out of time: more cannot be faster.
            let mut timed_out: Option<NonZeroU32> = None;
            for &repeat in &args.repeats {
                let cell = Cell {
                    procs,
                    policy,
                    repeat,
                };
                let name = cell.name();
                if let Some(fewer) = timed_out.filter(|fewer| *fewer <= repeat) {
                    eprintln!("bench scaling: {name} not run: {fewer} × the trace already timed out");
                    outln!("METRIC:{name}_wall_seconds:timeout:s")?;
                    continue;
                }
                eprintln!("bench scaling: {procs} processors, {policy}, {repeat} × the trace");
                let argv = replay_argv(&args, cell, &out);
                let finished =
                    measure_child(&argv, args.timeout, false).and_then(|measured| match measured {
                        Measured::Done {
                            wall,
                            cpu,
                            peak_memory,
                        } => Ok(Some((wall, cpu, peak_memory, summary_jobs(&out)?))),
                        Measured::Timeout => Ok(None),
                    });
                // Its jobs.csv may be large: gone before the next run.
                let _ = std::fs::remove_dir_all(&out);
                let Some((wall, cpu, peak_memory, jobs)) = finished? else {
                    timed_out = Some(timed_out.map_or(repeat, |fewer| fewer.min(repeat)));
                    outln!("METRIC:{name}_wall_seconds:timeout:s")?;
                    continue;
                };
                if jobs != counts[&(procs, repeat)] {
                    bail!(
                        "{name}: replay wrote {jobs} jobs, {} were counted before the run",
                        counts[&(procs, repeat)]
                    );
                }
                outln!("METRIC:{name}_wall_seconds:{wall:.3}:s")?;
                outln!("METRIC:{name}_cpu_seconds:{cpu:.3}:s")?;
                outln!("METRIC:{name}_jobs:{jobs}:jobs")?;
                outln!(
                    "METRIC:{name}_jobs_per_second:{:.0}:jobs/s",
                    jobs as f64 / wall.max(1e-9)
                )?;
                outln!("METRIC:{name}_peak_memory:{peak_memory}:bytes")?;
            }
        }
    }
    Ok(())
}

/// The `jobs` of `out/summary.json`: what the child replayed.
fn summary_jobs(out: &Path) -> anyhow::Result<u64> {
    let path = out.join(interstice_batsim::output::SUMMARY_JSON);
    let text = interstice_swf::input_file::read_text(&path, interstice_swf::input_file::MAX_TEXT_BYTES)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let summary: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    summary["jobs"]
        .as_u64()
        .with_context(|| format!("{} has no job count", path.display()))
}

/// Arguments of `interstice bench measure`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "The command's stdout goes to stderr, so that stdout holds only the METRIC lines: \
    measure_wall_seconds (from start to exit, or `timeout`), measure_cpu_seconds (user + system) and \
    measure_peak_memory (the child's own peak resident set, getrusage's ru_maxrss: the child is this \
    process's only one). A failing command fails the measure.\n\n\
    Example: interstice bench measure --timeout 600 -- replay KTH-SP2.swf.gz --procs 100 \
    --policy convergence --cloud-interval 10 --out /tmp/kth --quiet"
)]
pub struct MeasureArgs {
    /// Kill the command after S seconds and report `timeout`.
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// The interstice subcommand and its arguments.
    #[arg(last = true, required = true, value_name = "ARGS")]
    pub command: Vec<OsString>,
}

/// Run `interstice bench measure`.
pub fn measure(args: MeasureArgs) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("cannot find the interstice executable")?;
    let started = Instant::now();
    let mut child = Command::new(&exe)
        .args(&args.command)
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::io::stderr()))
        .spawn()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    let deadline = args.timeout.map(|secs| started + Duration::from_secs_f64(secs));
    let status = loop {
        if let Some(status) = child.try_wait().context("cannot wait for the command")? {
            break Some(status);
        }
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            child.kill().context("cannot kill the command")?;
            child.wait().context("cannot wait for the command")?;
            break None;
        }
        // Polling: the wall time is late by at most a thousandth of itself
        // (or a millisecond), at a negligible cost in CPU.
        let pause = (started.elapsed() / 1000).clamp(Duration::from_millis(1), Duration::from_millis(20));
        std::thread::sleep(pause);
    };
    let wall = started.elapsed().as_secs_f64();
    let Some(status) = status else {
        outln!("METRIC:measure_wall_seconds:timeout:s")?;
        return Ok(());
    };
    if !status.success() {
        bail!("`interstice {}` failed ({status})", shown(&args.command));
    }
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .context("cannot read the command's resource usage")?;
    let seconds = |time: nix::sys::time::TimeVal| time.tv_sec() as f64 + time.tv_usec() as f64 / 1e6;
    let cpu = seconds(usage.user_time()) + seconds(usage.system_time());
    // Linux counts ru_maxrss in KiB.
    let peak = u64::try_from(usage.max_rss()).unwrap_or(0) * 1024;
    outln!("METRIC:measure_wall_seconds:{wall:.4}:s")?;
    outln!("METRIC:measure_cpu_seconds:{cpu:.4}:s")?;
    outln!("METRIC:measure_peak_memory:{peak}:bytes")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Parser, Debug)]
    struct Bench {
        #[command(flatten)]
        scaling: ScalingArgs,
    }

    #[test]
    fn a_cell_replays_the_issue_setting_on_a_clipped_machine() {
        let bench = Bench::try_parse_from(["x", "--trace", "kth.swf", "--until", "86400"]).unwrap();
        let cell = Cell {
            procs: 10,
            policy: Policy::Conservative,
            repeat: NonZeroU32::new(4).unwrap(),
        };
        let replay = parse_replay(&replay_argv(&bench.scaling, cell, Path::new("out"))).unwrap();
        let spec = replay.trace.spec(replay.engine.conv);
        assert_eq!(spec.workload, Path::new("kth.swf"));
        assert_eq!((spec.procs, spec.conv), (Some(10), None));
        assert_eq!(spec.clip, Some(interstice_swf::ClipTarget::Area));
        assert_eq!((spec.until, spec.repeat.get()), (Some(86_400.0), 4));
        assert_eq!(replay.engine.policy, Some(Policy::Conservative));
        let config = replay.engine.to_config(10).unwrap();
        assert_eq!(config.admission, Admission::AdmitAll);
        assert_eq!(config.scheduling, Scheduling::HpcFirst);
        let cloud = replay.cloud.spec(replay.cloud_interval.unwrap());
        assert_eq!(cloud.interval, 10.0);
        assert_eq!(cloud.procs, "2".parse().unwrap());
        assert_eq!((cloud.walltime, cloud.slack), (180.0, 1.25));
        assert_eq!(cloud.runtime, "18".parse().unwrap());
        assert_eq!(cloud.seed, defaults::SEED);
        assert!(replay.quiet);
        assert_eq!(replay.out, Path::new("out"));
    }

    #[test]
    fn a_cell_replays_with_the_scheduling_asked_for() {
        let bench =
            Bench::try_parse_from(["x", "--trace", "kth.swf", "--scheduling", "shared-queue"]).unwrap();
        let cell = Cell {
            procs: 40,
            policy: Policy::Convergence,
            repeat: NonZeroU32::MIN,
        };
        let replay = parse_replay(&replay_argv(&bench.scaling, cell, Path::new("out"))).unwrap();
        let config = replay.engine.to_config(40).unwrap();
        assert_eq!(config.scheduling, Scheduling::SharedQueue);
        assert_eq!(config.policy, Policy::Convergence);
    }

    #[test]
    fn metric_values_are_found_by_exact_name() {
        let stdout = "noise\nMETRIC:measure_wall_seconds_x:9:s\nMETRIC:measure_wall_seconds:1.5:s\n";
        assert_eq!(metric(stdout, "measure_wall_seconds"), Some("1.5"));
        assert_eq!(metric(stdout, "measure_cpu_seconds"), None);
    }
}
