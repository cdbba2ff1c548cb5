//! `interstice submit|predict|slots|jobs|cancel|health --daemon SOCKET`: clients
//! of a running `intersticed`, and `interstice bench predict`.

use super::engine_args::{parse_policy, parse_seconds};
use anyhow::{bail, Context};
use interstice_api::client::{Client, ClientError, DEFAULT_TIMEOUT};
use interstice_api::paths::DEFAULT_SOCKET;
use interstice_api::wire::{PredictRequest, SubmitRequest};
use interstice_core::{
    slo_for, Admission, Engine, EngineConfig, Job, JobId, JobKind, Policy, Time, DEFAULT_SLACK,
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

/// Client subcommands of a running `intersticed`.
#[derive(clap::Subcommand, Debug)]
pub enum ClientCommand {
    /// Submit a cloud job: accepted (with its predicted start and completion) or
    /// rejected with an SLO counter-offer (exit status 3).
    Submit(SubmitArgs),
    /// Predict start, completion and decision for a job shape; nothing is submitted.
    Predict(PredictArgs),
    /// The convergence area's idle slots now (W_immediate) and later (W_future).
    Slots(DaemonArg),
    /// List cloud jobs, or show one.
    Jobs(JobsArgs),
    /// Cancel a cloud job (its owner or root only).
    Cancel(CancelArgs),
    /// Check that the daemon answers.
    Health(DaemonArg),
}

/// `interstice submit`.
#[derive(clap::Args, Debug)]
pub struct SubmitArgs {
    #[command(flatten)]
    daemon: DaemonArg,
    #[command(flatten)]
    shape: JobShape,
    /// Environment variable NAME=VALUE (repeatable); nothing else is inherited but PATH.
    #[arg(long = "env", value_name = "NAME=VALUE")]
    env: Vec<String>,
    /// Working directory (absolute).
    #[arg(long)]
    workdir: Option<String>,
    /// Class label.
    #[arg(long)]
    class: Option<String>,
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
    /// Show only this job.
    id: Option<u64>,
}

/// `interstice cancel`.
#[derive(clap::Args, Debug)]
pub struct CancelArgs {
    #[command(flatten)]
    daemon: DaemonArg,
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

/// A client of the daemon at `socket`.
fn client(socket: &std::path::Path) -> Client {
    Client::new(socket, DEFAULT_TIMEOUT)
}

/// Run a client subcommand.
pub fn run(cmd: ClientCommand) -> anyhow::Result<()> {
    match cmd {
        ClientCommand::Submit(args) => {
            let client = client(&args.daemon.daemon);
            let request = SubmitRequest {
                procs: args.shape.cloud_procs,
                walltime: args.shape.walltime,
                slo: args.shape.slo(),
                argv: args.argv,
                env: parse_env(&args.env)?,
                workdir: args.workdir,
                class: args.class,
                features: Vec::new(),
                on_behalf_of: None,
            };
            let answer = client.submit(&request)?;
            print_json(&answer)?;
            if !answer.accepted() {
                return Err(super::exit::Refused(match answer.counter_offer_slo {
                    Some(slo) => format!("rejected; the plan can meet --slo {}", slo.ceil()),
                    None => "rejected; no slot in sight for this shape".to_string(),
                })
                .into());
            }
            Ok(())
        }
        ClientCommand::Predict(args) => {
            let client = client(&args.daemon.daemon);
            let request = PredictRequest {
                procs: args.shape.cloud_procs,
                walltime: args.shape.walltime,
                slo: args.shape.slo(),
                admission: false,
                features: Vec::new(),
            };
            print_json(&client.predict(&request)?)
        }
        ClientCommand::Slots(args) => print_json(&client(&args.daemon).slots()?),
        ClientCommand::Jobs(args) => {
            let client = client(&args.daemon.daemon);
            match args.id {
                Some(id) => print_json(&client.job(id)?),
                None => print_json(&client.jobs()?),
            }
        }
        ClientCommand::Cancel(args) => print_json(&client(&args.daemon.daemon).cancel(args.id)?),
        ClientCommand::Health(args) => print_json(&client(&args.daemon).health()?),
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

fn percentile(sorted: &[Duration], q: f64) -> Duration {
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
        "in-process: {} predictions, {violations} predicted violations",
        args.predictions
    )?;
    outln!(
        "METRIC:predict_inprocess_p50:{:.3}:us",
        percentile(&latencies, 0.50).as_secs_f64() * 1e6
    )?;
    outln!(
        "METRIC:predict_inprocess_p99:{:.3}:us",
        percentile(&latencies, 0.99).as_secs_f64() * 1e6
    )?;
    outln!("METRIC:predict_inprocess_throughput:{throughput:.0}:predictions/s")?;
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
    outln!(
        "METRIC:predict_socket_p50:{:.3}:us",
        percentile(&latencies, 0.50).as_secs_f64() * 1e6
    )?;
    outln!(
        "METRIC:predict_socket_p99:{:.3}:us",
        percentile(&latencies, 0.99).as_secs_f64() * 1e6
    )?;
    outln!(
        "METRIC:predict_socket_throughput:{:.0}:predictions/s",
        latencies.len() as f64 / args.seconds
    )?;
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
            assert_eq!(args.shape.cloud_procs, 4);
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
