//! `interstice submit|predict|slots|jobs|cancel|health --daemon SOCKET`: clients
//! of a running `intersticed`, and `interstice bench predict`.

use super::engine_args::{parse_policy, parse_seconds};
use anyhow::{bail, Context};
use interstice_api::client::{Client, ClientError, DEFAULT_TIMEOUT};
use interstice_api::paths::DEFAULT_SOCKET;
use interstice_api::slurm::parse_class;
use interstice_api::wire::{PredictRequest, SubmitRequest};
use interstice_core::{
    slo_for, Admission, Engine, EngineConfig, Job, JobId, JobKind, Policy, Predictor, Time, DEFAULT_SLACK,
};
use interstice_swf::SplitMix64;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The daemon's socket.
#[derive(clap::Args, Debug, Clone)]
pub struct DaemonArg {
    /// The daemon's Unix socket.
    #[arg(long, value_name = "SOCKET", default_value = DEFAULT_SOCKET)]
    daemon: PathBuf,
}

/// How an answer is printed.
#[derive(clap::Args, Debug, Clone)]
pub struct OutputArg {
    /// Print the daemon's answer as JSON (times as epoch seconds) instead of a
    /// table or `key: value` lines.
    #[arg(long)]
    json: bool,
}

impl OutputArg {
    /// `value` as JSON with `--json`, else as `human` renders it.
    fn print<T: Serialize>(&self, value: &T, human: impl FnOnce(&T) -> String) -> anyhow::Result<()> {
        if self.json {
            print_json(value)
        } else {
            outln!("{}", human(value))?;
            Ok(())
        }
    }
}

/// A daemon and how to print its answer.
#[derive(clap::Args, Debug, Clone)]
pub struct ViewArgs {
    #[command(flatten)]
    daemon: DaemonArg,
    #[command(flatten)]
    output: OutputArg,
}

/// Client subcommands of a running `intersticed`.
#[derive(clap::Subcommand, Debug)]
pub enum ClientCommand {
    /// Submit a cloud job: accepted (with its predicted start and completion) or
    /// rejected with an SLO counter-offer (exit status 3).
    Submit(SubmitArgs),
    /// Predict start, completion and decision for a job shape; nothing is submitted.
    Predict(PredictArgs),
    /// The convergence area's idle slots now (W_immediate) and later (W_future).
    Slots(ViewArgs),
    /// List cloud jobs, or show one.
    Jobs(JobsArgs),
    /// Cancel a cloud job (its owner or root only).
    Cancel(CancelArgs),
    /// The end of a cloud job's output (its owner or root only).
    Logs(LogsArgs),
    /// Check that the daemon answers.
    Health(ViewArgs),
    /// The convergence area now, or resize it with --set (root or the batch
    /// system): shrinking evicts the cloud jobs on the processors leaving it.
    Area(AreaArgs),
}

/// `interstice area`.
#[derive(clap::Args, Debug)]
pub struct AreaArgs {
    #[command(flatten)]
    view: ViewArgs,
    /// Resize the area to processors 0..N (0 closes it; at most the platform's).
    #[arg(long, value_name = "N")]
    set: Option<u32>,
}

/// `interstice submit`.
#[derive(clap::Args, Debug)]
pub struct SubmitArgs {
    /// The daemon, the output and the job's shape: what `predict` takes.
    #[command(flatten)]
    job: PredictArgs,
    /// Wait until the job ends: exit 0 when it completed, 8 when it failed
    /// (its own exit code is printed), 9 when it ended otherwise (timeout,
    /// evicted for good, cancelled, lost). Not the job's own code, as `sbatch
    /// --wait` would: that could not be told from this command's own
    /// statuses (3 for a refusal…).
    #[arg(long)]
    wait: bool,
    /// Environment variable NAME=VALUE (repeatable); nothing else is inherited but PATH.
    #[arg(long = "env", value_name = "NAME=VALUE")]
    env: Vec<String>,
    /// Working directory (absolute).
    #[arg(long)]
    workdir: Option<String>,
    /// Service class (e.g. gold, silver, bronze): one of the daemon's `classes`, whose
    /// availability SLO the job is accounted against (docs/qos.md); a free label if it has none.
    #[arg(long, value_name = "NAME", value_parser = parse_class)]
    class: Option<String>,
    /// Memory the job may use, in MiB: beyond it the kernel kills it (it
    /// ends `failed`, reason `memory`). Default: the node's share per
    /// processor (`execution.limits` of the daemon).
    #[arg(long = "memory-mb", value_name = "MIB")]
    memory_mb: Option<u64>,
    /// The program and its arguments (no shell).
    #[arg(last = true, required = true, value_name = "ARGV")]
    argv: Vec<String>,
}

/// `interstice predict`.
#[derive(clap::Args, Debug)]
pub struct PredictArgs {
    #[command(flatten)]
    daemon: DaemonArg,
    #[command(flatten)]
    output: OutputArg,
    #[command(flatten)]
    shape: JobShape,
}

/// The shape of a cloud job, for `submit` and `predict`.
#[derive(clap::Args, Debug)]
pub struct JobShape {
    /// Processors of the job (as sbatch's -n).
    #[arg(long, short = 'n', value_name = "N", default_value_t = 1)]
    cloud_procs: u32,
    /// The old name of --cloud-procs: refused, naming the new one (--procs is the machine everywhere).
    #[arg(long = "procs", value_name = "N", hide = true, value_parser = super::flags::renamed_job_procs)]
    old_procs: Option<u32>,
    /// Walltime, a duration: seconds (60, 1.5) or 90s, 3m, 1h30m, 2d (the job is killed when it is
    /// reached).
    #[arg(long, value_parser = parse_seconds, default_value_t = 60.0)]
    walltime: f64,
    /// Maximum response time in seconds.
    #[arg(long, value_parser = parse_seconds, help = format!(
        "Maximum response time, a duration (seconds, or 90s, 3m, 1h30m, 2d) [default: the engine's default slack, {DEFAULT_SLACK} × walltime]"
    ))]
    slo: Option<f64>,
    /// The job's size in bytes (its program and data): a data center's broker adds the time to
    /// move it to a member (`F^r`, docs/datacenter.md); a member ignores it. Default 0.
    #[arg(long, value_name = "BYTES")]
    bytes: Option<u64>,
}

impl JobShape {
    /// The SLO asked for, else the engine's rule for a job given without one.
    fn slo(&self) -> f64 {
        self.slo
            .unwrap_or_else(|| slo_for(Time::from_secs_f64(self.walltime), DEFAULT_SLACK).as_secs_f64())
    }
}

/// `interstice jobs`.
#[derive(clap::Args, Debug)]
pub struct JobsArgs {
    #[command(flatten)]
    daemon: DaemonArg,
    #[command(flatten)]
    output: OutputArg,
    /// Only jobs in these states (comma-separated: queued, running, completed,
    /// failed, timeout, evicted, cancelled, lost, rejected, migrated).
    #[arg(long, value_delimiter = ',', value_name = "STATE")]
    state: Vec<String>,
    /// Only jobs of this user (a name or a uid).
    #[arg(long, value_name = "USER", value_parser = parse_owner)]
    owner: Option<u32>,
    /// Show only this job.
    id: Option<u64>,
}

/// `--owner`: a uid, or a user name known to this host.
fn parse_owner(text: &str) -> Result<u32, String> {
    if let Ok(uid) = text.trim().parse::<u32>() {
        return Ok(uid);
    }
    match nix::unistd::User::from_name(text.trim()) {
        Ok(Some(user)) => Ok(user.uid.as_raw()),
        _ => Err(format!("{text:?} is neither a uid nor a user of this host")),
    }
}

/// Job states after which nothing more happens to a job.
const FINAL_STATES: [&str; 8] = [
    "completed",
    "failed",
    "timeout",
    "cancelled",
    "lost",
    "rejected",
    "migrated",
    "evicted",
];

/// `interstice logs`.
#[derive(clap::Args, Debug)]
pub struct LogsArgs {
    #[command(flatten)]
    daemon: DaemonArg,
    #[command(flatten)]
    output: OutputArg,
    /// Its standard error instead of its standard output.
    #[arg(long)]
    stderr: bool,
    /// At most this many bytes, from the end (the daemon sends at most 1 MiB).
    #[arg(long, value_name = "BYTES", default_value_t = 64 * 1024)]
    tail: u64,
    /// The job id.
    id: u64,
}

/// `interstice cancel`.
#[derive(clap::Args, Debug)]
pub struct CancelArgs {
    #[command(flatten)]
    daemon: DaemonArg,
    #[command(flatten)]
    output: OutputArg,
    /// The job id.
    id: u64,
}

fn print_json(value: &impl Serialize) -> anyhow::Result<()> {
    outln!("{}", serde_json::to_string_pretty(value)?)?;
    Ok(())
}

fn parse_env(pairs: &[String]) -> anyhow::Result<Option<BTreeMap<String, String>>> {
    if pairs.is_empty() {
        return Ok(None);
    }
    let mut env = BTreeMap::new();
    for pair in pairs {
        let Some((name, value)) = pair.split_once('=') else {
            bail!("--env {pair:?}: expected NAME=VALUE");
        };
        env.insert(name.to_string(), value.to_string());
    }
    Ok(Some(env))
}

/// Poll job `id` every second until it is in a final state.
fn wait_for_end(client: &Client, id: u64) -> anyhow::Result<interstice_api::wire::JobView> {
    loop {
        let view = client.job(id)?;
        if FINAL_STATES.contains(&view.state.as_str()) {
            return Ok(view);
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// A client of the daemon at `socket`.
fn client(socket: &std::path::Path) -> Client {
    Client::new(socket, DEFAULT_TIMEOUT)
}

/// `interstice submit`: the answer, a refusal's counter-offer as an error
/// (exit status 3), and with `--wait` the job's end (exit status 8 or 9 when
/// it did not complete).
fn submit(args: SubmitArgs) -> anyhow::Result<()> {
    let client = client(&args.job.daemon.daemon);
    let request = SubmitRequest {
        procs: args.job.shape.cloud_procs,
        walltime: args.job.shape.walltime,
        slo: args.job.shape.slo(),
        argv: args.argv,
        env: parse_env(&args.env)?,
        workdir: args.workdir,
        class: args.class,
        features: Vec::new(),
        on_behalf_of: None,
        memory_mb: args.memory_mb,
        bytes: args.job.shape.bytes,
    };
    let answer = client.submit(&request)?;
    args.job.output.print(&answer, super::show::submitted)?;
    if !answer.accepted() {
        return Err(
            super::exit::Refused(match (&answer.refusal, answer.counter_offer_slo) {
                (Some(refusal), Some(slo)) if refusal.reason != "predicted" => {
                    format!(
                        "rejected: {}; resubmit with --slo {}",
                        refusal.message,
                        slo.ceil()
                    )
                }
                (Some(refusal), None) if refusal.reason != "predicted" => {
                    format!("rejected: {}", refusal.message)
                }
                (_, Some(slo)) => format!("rejected; the plan can meet --slo {}", slo.ceil()),
                (_, None) => "rejected; no slot in sight for this shape".to_string(),
            })
            .into(),
        );
    }
    if args.wait {
        let ended = wait_for_end(&client, answer.id)?;
        if !args.job.output.json {
            outln!("job {} {}", ended.id, ended.state)?;
        }
        if ended.state == "completed" {
            return Ok(());
        }
        return Err(super::exit::JobEnded {
            id: ended.id,
            state: ended.state,
            exit_code: ended.exit_code,
        }
        .into());
    }
    Ok(())
}

/// Run a client subcommand.
pub fn run(cmd: ClientCommand) -> anyhow::Result<()> {
    match cmd {
        ClientCommand::Submit(args) => submit(args),
        ClientCommand::Predict(args) => {
            let client = client(&args.daemon.daemon);
            let request = PredictRequest {
                procs: args.shape.cloud_procs,
                walltime: args.shape.walltime,
                slo: args.shape.slo(),
                admission: false,
                features: Vec::new(),
                class: None,
                bytes: args.shape.bytes,
            };
            args.output
                .print(&client.predict(&request)?, super::show::predicted)
        }
        ClientCommand::Slots(args) => args
            .output
            .print(&client(&args.daemon.daemon).slots()?, super::show::slots),
        ClientCommand::Jobs(args) => {
            let client = client(&args.daemon.daemon);
            match args.id {
                Some(id) => args.output.print(&client.job(id)?, super::show::job),
                None => {
                    let mut list = client.jobs()?;
                    list.jobs.retain(|job| {
                        (args.state.is_empty() || args.state.contains(&job.state))
                            && args.owner.map_or(true, |uid| job.owner_uid == Some(uid))
                    });
                    args.output.print(&list, super::show::jobs)
                }
            }
        }
        ClientCommand::Logs(args) => {
            let stream = if args.stderr { "stderr" } else { "stdout" };
            let output = client(&args.daemon.daemon).job_output(args.id, stream, args.tail)?;
            if args.output.json {
                print_json(&output)
            } else {
                out!("{}", output.text)?;
                Ok(())
            }
        }
        ClientCommand::Cancel(args) => args
            .output
            .print(&client(&args.daemon.daemon).cancel(args.id)?, super::show::job),
        ClientCommand::Health(args) => args
            .output
            .print(&client(&args.daemon.daemon).health()?, super::show::health),
        ClientCommand::Area(args) => {
            let client = client(&args.view.daemon.daemon);
            let area = match args.set {
                Some(procs) => client.resize_area(procs)?,
                None => client.area()?,
            };
            args.view.output.print(&area, super::show::area)
        }
    }
}

/// Arguments of `interstice bench predict`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// HPC jobs in the engine's plan.
    #[arg(long, default_value_t = 10_000)]
    jobs: u32,
    /// Processors of the simulated platform.
    #[arg(long, default_value_t = 1024)]
    procs: u32,
    /// Policy of the plan.
    #[arg(long, value_parser = parse_policy, default_value = "conservative")]
    policy: Policy,
    /// The predictor timed: exact, thesis or learned.
    #[arg(long, value_parser = super::engine_args::parse_predictor, default_value = "exact")]
    predictor: Predictor,
    /// Predictions to time in-process.
    #[arg(long, default_value_t = 100_000)]
    predictions: u32,
    /// Also time predictions over this daemon socket (a live intersticed).
    #[arg(long, value_name = "SOCKET")]
    daemon: Option<PathBuf>,
    /// Client threads for the socket benchmark.
    #[arg(long, default_value_t = 4)]
    threads: u32,
    /// Duration of the socket benchmark (seconds, or 90s, 3m, …).
    #[arg(long, value_parser = parse_seconds, default_value_t = 3.0)]
    seconds: f64,
    /// Seed of the generated plan.
    #[arg(long, default_value_t = 42)]
    seed: u64,
}

pub(crate) fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// Run the prediction benchmark.
pub fn bench(args: BenchArgs) -> anyhow::Result<()> {
    let policy = args.policy;
    let mut config = EngineConfig::new(args.procs, policy);
    config.admission = Admission::RejectPredicted;
    config.predictor = args.predictor;
    let mut engine = Engine::new(config).context("engine config")?;
    let mut rng = SplitMix64::new(args.seed);
    let built = Instant::now();
    for index in 0..args.jobs {
        let procs = (1u32 << rng.below(7)).min(args.procs);
        let walltime = Time::from_secs(60 + rng.below(3_600) as i64);
        let submit = Time::from_secs(index as i64);
        let job = Job {
            id: JobId(index as u64 + 1),
            submit,
            walltime,
            walltime_enforced: true,
            runtime: None,
            procs,
            kind: JobKind::Hpc,
            slo: None,
        };
        engine.submit(job).context("building the plan")?;
    }
    let now = Time::from_secs(args.jobs as i64);
    engine.schedule(now);
    outln!(
        "plan: {} HPC jobs on {} processors ({} running, {} queued), built in {:.2} s",
        args.jobs,
        args.procs,
        engine.running(JobKind::Hpc),
        engine.queued(JobKind::Hpc),
        built.elapsed().as_secs_f64()
    )?;
    let mut latencies = Vec::with_capacity(args.predictions as usize);
    let mut violations = 0u64;
    let started = Instant::now();
    for _ in 0..args.predictions {
        let procs = 1u32 << rng.below(3);
        let walltime = Time::from_secs(180);
        let slo = Time::from_secs(180 * (1 + rng.below(15) as i64) + rng.below(86_400) as i64);
        let t0 = Instant::now();
        let prediction = engine.predict(procs, walltime, Some(slo), now);
        latencies.push(t0.elapsed());
        violations += prediction.predicts_violation as u64;
    }
    let total = started.elapsed();
    latencies.sort();
    let throughput = args.predictions as f64 / total.as_secs_f64();
    outln!(
        "in-process: {} predictions ({}), {violations} predicted violations",
        args.predictions,
        args.predictor
    )?;
    print_latency_metrics("inprocess", &latencies, throughput)?;
    if let Some(socket) = &args.daemon {
        bench_socket(socket, &args)?;
    }
    Ok(())
}

fn bench_socket(socket: &std::path::Path, args: &BenchArgs) -> anyhow::Result<()> {
    client(socket).health().context("the daemon does not answer")?;
    let deadline = Instant::now() + Duration::from_secs_f64(args.seconds);
    let workers: Vec<_> = (0..args.threads.max(1))
        .map(|thread| {
            let client = client(socket);
            std::thread::spawn(move || -> Result<Vec<Duration>, ClientError> {
                let mut latencies = Vec::new();
                let mut rng = SplitMix64::new(thread as u64 + 7);
                while Instant::now() < deadline {
                    let request = PredictRequest {
                        procs: 1 << rng.below(3),
                        walltime: 180.0,
                        slo: 180.0 * (1 + rng.below(15)) as f64,
                        admission: false,
                        features: Vec::new(),
                        class: None,
                        bytes: None,
                    };
                    let t0 = Instant::now();
                    client.predict(&request)?;
                    latencies.push(t0.elapsed());
                }
                Ok(latencies)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for worker in workers {
        latencies.extend(
            worker
                .join()
                .map_err(|_| anyhow::anyhow!("a client thread panicked"))??,
        );
    }
    latencies.sort();
    outln!(
        "socket: {} predictions with {} threads",
        latencies.len(),
        args.threads
    )?;
    print_latency_metrics("socket", &latencies, latencies.len() as f64 / args.seconds)?;
    Ok(())
}

/// The three METRIC lines of one way of predicting (`inprocess`, `socket`):
/// the median and 99th-percentile latency of the sorted `latencies` in
/// microseconds, and the throughput in predictions per second.
fn print_latency_metrics(way: &str, latencies: &[Duration], throughput: f64) -> anyhow::Result<()> {
    for (name, quantile) in [("p50", 0.50), ("p99", 0.99)] {
        outln!(
            "METRIC:predict_{way}_{name}:{:.3}:us",
            percentile(latencies, quantile).as_secs_f64() * 1e6
        )?;
    }
    outln!("METRIC:predict_{way}_throughput:{throughput:.0}:predictions/s")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Command {
        #[command(subcommand)]
        client: ClientCommand,
    }

    #[test]
    fn walltime_and_slo_take_durations() {
        let parsed = Command::try_parse_from(["x", "predict", "--walltime", "3m", "--slo", "1h30m"]).unwrap();
        let ClientCommand::Predict(args) = parsed.client else {
            panic!("predict");
        };
        assert_eq!((args.shape.walltime, args.shape.slo), (180.0, Some(5_400.0)));
        let plain = Command::try_parse_from(["x", "predict", "--walltime", "30", "--slo", "90.5"]).unwrap();
        let ClientCommand::Predict(args) = plain.client else {
            panic!("predict");
        };
        assert_eq!((args.shape.walltime, args.shape.slo), (30.0, Some(90.5)));
        let err = Command::try_parse_from(["x", "submit", "--walltime", "3 min", "--", "true"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("--walltime") && err.contains("1h30m"), "{err}");
    }

    #[test]
    fn the_jobs_processors_are_cloud_procs_and_the_old_procs_is_refused() {
        for flags in [["-n", "4"], ["--cloud-procs", "4"]] {
            let parsed = Command::try_parse_from(["x", "submit", flags[0], flags[1], "--", "true"]).unwrap();
            let ClientCommand::Submit(args) = parsed.client else {
                panic!("submit");
            };
            assert_eq!(args.job.shape.cloud_procs, 4);
        }
        for command in [
            &["submit", "--procs", "4", "--", "true"][..],
            &["predict", "--procs", "4"],
        ] {
            let err = Command::try_parse_from(std::iter::once("x").chain(command.iter().copied()))
                .unwrap_err()
                .to_string();
            assert!(err.contains("--cloud-procs N (or -n N)"), "{command:?}: {err}");
        }
    }
}
