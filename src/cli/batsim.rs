//! `interstice batsim`: be the external scheduler of a real Batsim 4 over
//! ZeroMQ; `interstice batsim platform` writes a SimGrid platform for it;
//! `interstice batsim drive` plays a tiny Batsim against any scheduler (to try
//! things without Batsim installed); `interstice batsim bench` measures the
//! adapter's own cost per message.

use super::engine_args::{parse_factor, parse_policy, parse_seconds, EngineArgs};
use super::experiment_args::CloudArgs;
use super::flags::Usage;
use anyhow::{bail, Context};
use clap::Subcommand;
use interstice_batsim::output;
use interstice_batsim::protocol::classes::OptionSource;
use interstice_batsim::protocol::driver::{self, DriverConfig, Workload};
use interstice_batsim::protocol::platform::{platform_xml, PlatformSpec};
use interstice_batsim::protocol::{
    serve, AdapterConfig, CloudInjection, EngineOptions, ServerOptions, Session, VictimOrder,
};
use interstice_batsim::sim::synthetic::{hpc_workload, SyntheticOptions};
use interstice_core::qos::Eviction;
use interstice_core::{Policy, Shown, Time};
use interstice_swf::defaults;
use interstice_swf::qos::{parse_eviction, QosSpec};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Be Batsim's external scheduler (or make a platform, drive a scheduler, benchmark).
#[derive(clap::Args, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "Batsim flags: --inject-cloud, and any resubmission of an evicted job \
                  (--max-resubmissions), need Batsim's --enable-dynamic-jobs (without it an eviction \
                  is final); nothing needs --enable-profile-reuse. On a platform without latencies \
                  (`interstice batsim platform --no-latency`) the decisions are those of \
                  `interstice replay`.\n\n\
                  Example: interstice batsim --policy easy --out results/ &\n         \
                  batsim -p platform.xml -w workload.json -e out/x -s tcp://127.0.0.1:28000"
)]
pub struct BatsimArgs {
    /// A helper instead of the scheduler.
    #[command(subcommand)]
    pub command: Option<BatsimCommand>,
    #[command(flatten)]
    pub serve: ServeArgs,
}

/// `interstice batsim` helpers.
#[derive(Subcommand, Debug)]
pub enum BatsimCommand {
    /// Write a SimGrid platform for Batsim: N compute hosts plus a master host.
    Platform(PlatformArgs),
    /// Play a tiny Batsim (zero-latency platform) against a scheduler: connect, run a workload, check every answer.
    Drive(DriveArgs),
    /// Measure the adapter's own CPU time per message on a large synthetic workload.
    Bench(BenchArgs),
}

/// Options of the scheduler itself.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// ZeroMQ endpoint to bind (Batsim connects to it with `-s`); loopback by default.
    #[arg(long, value_name = "ENDPOINT", default_value = "tcp://127.0.0.1:28000")]
    pub socket: String,
    /// Engine options; what is not given here comes from Batsim's --sched-cfg JSON (same keys,
    /// e.g. {"policy": "easy", "max_resubmissions": 1}), else the defaults.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Write jobs.csv and summary.json here at SIMULATION_ENDS: new or empty, or any with --force.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write into a non-empty --out DIR, overwriting the files of the same names (without it a
    /// non-empty DIR is refused).
    #[arg(long)]
    pub force: bool,
    /// Give up when Batsim sends nothing for this many seconds (default: wait forever).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// On an ipc:// --socket, only a Batsim running as this uid may drive the simulation
    /// (default: this process's uid); another user's messages are answered with an error and
    /// ignored. A tcp:// endpoint carries no credentials: there the first Batsim peer drives, and
    /// a second peer that speaks stops the run.
    #[arg(long, value_name = "UID")]
    pub driver_uid: Option<u32>,
    /// Bind a tcp:// --socket on an address other than loopback (any host that reaches it may
    /// drive the simulation; refused without this).
    #[arg(long)]
    pub allow_remote: bool,
    /// Create cloud jobs through Batsim's dynamic jobs: run Batsim with --enable-dynamic-jobs
    /// (each job registers a profile of its own: --enable-profile-reuse is not needed).
    #[arg(long)]
    pub inject_cloud: bool,
    /// Seconds between two injected cloud jobs.
    #[arg(long, value_name = "S", value_parser = parse_seconds, default_value_t = defaults::CLOUD_INTERVAL_SECS)]
    pub cloud_interval: f64,
    /// The injected cloud jobs (each job's run time is the `delay` of its Batsim profile).
    #[command(flatten)]
    pub cloud: CloudArgs,
    /// First cloud submit time, seconds (default: the first static job's submission).
    #[arg(long, value_name = "T", value_parser = super::engine_args::parse_instant)]
    pub cloud_from: Option<f64>,
    /// Last cloud submit time, seconds (default: until Batsim's no_more_static_job_to_submit).
    #[arg(long, value_name = "T", value_parser = super::engine_args::parse_instant)]
    pub cloud_to: Option<f64>,
    /// Running cloud jobs give way to HPC work in POLICY's victim order by their service
    /// classes: priority, qos-driven or owner-share (docs/qos.md; default: those on the
    /// processors the plan names). A cloud job's class and tenant are its workload's
    /// `class`/`tenant` labels, else drawn by the --qos file's weights. Needs fcfs or easy,
    /// hpc-first and no maintenance windows.
    #[arg(long, value_name = "POLICY", value_parser = parse_eviction)]
    pub eviction: Option<Eviction>,
    /// The classes and tenants of the cloud jobs for --eviction (YAML, as `replay --qos`;
    /// default: the seeds' gold 100 %, silver 90 %, bronze 50 %, drawn equally, one tenant).
    #[arg(long, value_name = "FILE")]
    pub qos: Option<PathBuf>,
    /// Print nothing on success.
    #[arg(long)]
    pub quiet: bool,
}

/// `interstice batsim platform`.
#[derive(clap::Args, Debug)]
pub struct PlatformArgs {
    /// Compute hosts (resource ids 0..N).
    #[arg(long, value_name = "N")]
    pub hosts: u32,
    /// All latencies 0: exchanges cost no simulated time (same decisions as `interstice replay`).
    #[arg(long)]
    pub no_latency: bool,
    /// Host speed in Gflop/s.
    #[arg(long, value_name = "GF", value_parser = parse_factor, default_value = "1")]
    pub speed: f64,
    /// Output file (default: stdout).
    #[arg(short, long, value_name = "platform.xml")]
    pub output: Option<PathBuf>,
}

/// `interstice batsim drive`.
#[derive(clap::Args, Debug)]
pub struct DriveArgs {
    /// Batsim workload JSON (delay and parallel_homogeneous profiles).
    pub workload: PathBuf,
    /// The scheduler's endpoint.
    #[arg(long, value_name = "ENDPOINT", default_value = "tcp://127.0.0.1:28000")]
    pub connect: String,
    /// Compute resources (default: the workload's nb_res).
    #[arg(long, value_name = "N")]
    pub resources: Option<u32>,
    /// Allow REGISTER_JOB/REGISTER_PROFILE (Batsim's --enable-dynamic-jobs).
    #[arg(long)]
    pub enable_dynamic_jobs: bool,
    /// Acknowledge registrations with JOB_SUBMITTED (Batsim's --acknowledge-dynamic-jobs).
    #[arg(long)]
    pub acknowledge_dynamic_jobs: bool,
    /// Batsim's --sched-cfg string (engine options as JSON).
    #[arg(long, value_name = "JSON", default_value = "")]
    pub sched_cfg: String,
    /// Give up when the scheduler does not answer within this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, default_value = "30")]
    pub timeout: f64,
}

/// `interstice batsim bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// HPC jobs of the synthetic workload.
    #[arg(long, default_value = "50000", value_parser = super::engine_args::parse_job_count)]
    pub jobs: usize,
    /// Processors.
    #[arg(long, default_value = "256", value_parser = super::engine_args::parse_generated_procs)]
    pub procs: u32,
    /// Days over which the jobs arrive.
    #[arg(long, default_value = "120", value_parser = super::engine_args::parse_generated_days)]
    pub days: u32,
    /// Scheduling policy.
    #[arg(long, value_parser = parse_policy, default_value = "easy")]
    pub policy: Policy,
    /// Seed of the synthetic workload.
    #[arg(long, default_value_t = SyntheticOptions::DEFAULT_SEED)]
    pub seed: u64,
    /// Run this real Batsim (e.g. `.batsim/bin/batsim`) instead of the tiny
    /// one, on `--workload` and `--platform`, and report its CPU time too.
    #[arg(long, value_name = "PATH", requires_all = ["workload", "platform"])]
    pub batsim: Option<PathBuf>,
    /// Batsim workload JSON for `--batsim` (e.g. from `interstice swf convert`).
    #[arg(long, value_name = "FILE", requires = "batsim")]
    pub workload: Option<PathBuf>,
    /// SimGrid platform for `--batsim` (e.g. from `interstice batsim platform --no-latency`).
    #[arg(long, value_name = "FILE", requires = "batsim")]
    pub platform: Option<PathBuf>,
}

/// Run `interstice batsim …`.
pub fn run(args: BatsimArgs) -> anyhow::Result<()> {
    match args.command {
        Some(BatsimCommand::Platform(platform)) => run_platform(platform),
        Some(BatsimCommand::Drive(drive)) => run_drive(drive),
        Some(BatsimCommand::Bench(bench)) => run_bench(bench),
        None => run_scheduler(args.serve),
    }
}

fn adapter_config(args: &ServeArgs) -> anyhow::Result<AdapterConfig> {
    let inject = if args.inject_cloud {
        let inject = CloudInjection {
            jobs: args.cloud.spec(args.cloud_interval).options(),
            start: args.cloud_from.map(Time::from_secs_f64),
            until: args.cloud_to.map(Time::from_secs_f64),
        };
        inject.validate().context("bad cloud injection options")?;
        Some(inject)
    } else {
        None
    };
    if args.engine.conv == Some(0) {
        bail!("--conv must be at least 1 (the area is processors 0..C)");
    }
    let engine = args.engine.options()?;
    Ok(AdapterConfig {
        victim_order: victim_order(args, &engine)?,
        engine,
        inject,
        out_dir: args.out.clone(),
    })
}

/// `--eviction`/`--qos`: the classes whose victim order running cloud jobs
/// give way in, as `replay --eviction/--qos` reads them; a flag that rules
/// it out (`--policy conservative`, `--scheduling shared-queue`,
/// `--maintenance`, owner-share without tenants) is a usage error naming it.
/// Batsim's `--sched-cfg` is judged when the simulation begins.
fn victim_order(args: &ServeArgs, engine: &EngineOptions) -> anyhow::Result<Option<VictimOrder>> {
    if args.eviction.is_none() && args.qos.is_none() {
        return Ok(None);
    }
    let conv = args.engine.conv.unwrap_or(0);
    let mut spec = match &args.qos {
        Some(path) => super::qos::area_spec(path, conv)?,
        None => QosSpec::defaults(Eviction::default(), conv),
    };
    if let Some(eviction) = args.eviction {
        spec.config.eviction = eviction;
    }
    super::qos::refuse_osep(spec.config.eviction)?;
    let usage = |e: interstice_batsim::protocol::VictimOrderError| Usage(e.to_string());
    let order = VictimOrder::new(spec).map_err(usage)?;
    order.check(&[(OptionSource::Flags, engine)]).map_err(usage)?;
    Ok(Some(order))
}

fn run_scheduler(args: ServeArgs) -> anyhow::Result<()> {
    let out = args.out.clone();
    super::flags::with_out_dir(out.as_deref(), args.force, || serve_checked(args))
}

/// [`run_scheduler`] once `--out` is known usable.
fn serve_checked(args: ServeArgs) -> anyhow::Result<()> {
    let config = adapter_config(&args)?;
    let options = ServerOptions {
        endpoint: args.socket.clone(),
        timeout: args.timeout.map(Duration::from_secs_f64),
        driver_uid: args.driver_uid,
        allow_remote: args.allow_remote,
    };
    if let Some(dir) = &args.out {
        output::prepare_out_dir(dir, true).context("--out is not usable")?;
    }
    let mut session = Session::new(config);
    if !args.quiet {
        // Batsim may abort before it connects (e.g. `-e DIR/x` with no DIR):
        // say how long this waits, so that a silent wait is not a mystery.
        let waiting = match args.timeout {
            Some(seconds) => format!("waiting up to {seconds} s (--timeout) for each of its messages"),
            None => "waiting for it without a time limit (--timeout S to give up)".to_string(),
        };
        eprintln!(
            "interstice batsim: listening on {} (run batsim with -s {}), {waiting}; if Batsim exits \
             before its first message, stop this with Ctrl-C",
            args.socket, args.socket
        );
    }
    let report = serve(&options, &mut session).context("the Batsim conversation failed")?;
    if !args.quiet {
        outln!("messages: {}", report.messages)?;
        if let Some(cpu) = report.thread_cpu {
            outln!(
                "adapter CPU time: {:.3} s ({:.1} us per message)",
                cpu.as_secs_f64(),
                cpu.as_secs_f64() * 1e6 / report.messages.max(1) as f64
            )?;
        }
        if let (Some(summary), Some(dir)) = (&report.summary, &args.out) {
            outln!(
                "jobs: {} (hpc {}, cloud {}), makespan {:.0} s, mean wait {:.1} s, utilization {:.3}, \
                 violations {} ({:.2} %), results in {}",
                summary.jobs,
                summary.hpc_jobs,
                summary.cloud_jobs,
                summary.makespan,
                Shown(summary.mean_wait),
                Shown(summary.utilization),
                summary.violations,
                Shown(summary.violation_percent),
                dir.display()
            )?;
        }
    }
    Ok(())
}

fn run_platform(args: PlatformArgs) -> anyhow::Result<()> {
    let spec = PlatformSpec {
        hosts: args.hosts,
        latency: !args.no_latency,
        speed_flops: args.speed * 1e9,
    };
    let xml = platform_xml(&spec)?;
    match &args.output {
        Some(path) => {
            std::fs::write(path, xml).with_context(|| format!("cannot write {}", path.display()))?
        }
        None => out!("{xml}")?,
    }
    Ok(())
}

fn run_drive(args: DriveArgs) -> anyhow::Result<()> {
    let workload = Workload::load(&args.workload, "w0")?;
    let mut config = DriverConfig::new(args.connect.clone());
    config.resources = args.resources;
    config.dynamic_jobs = args.enable_dynamic_jobs;
    config.acknowledge_dynamic_jobs = args.acknowledge_dynamic_jobs;
    config.sched_config = args.sched_cfg.clone();
    config.timeout = Duration::from_secs_f64(args.timeout);
    let report = driver::drive(&workload, &config)
        .with_context(|| format!("driving the scheduler at {} failed", args.connect))?;
    let killed = report
        .executions
        .iter()
        .filter(|e| e.state == "COMPLETED_KILLED")
        .count();
    outln!(
        "messages: {}, executions: {} (killed {killed}), rejected: {}, registered: {}, requested calls: {}, \
         end time: {} s",
        report.messages,
        report.executions.len(),
        report.rejected.len(),
        report.registered.len(),
        report.requested_calls,
        report.end_time
    )?;
    Ok(())
}

/// The workload and the Batsim that plays it in `interstice batsim bench`.
enum BenchPeer {
    /// The tiny Batsim, in this process, on a synthetic workload.
    Tiny(Workload),
    /// A real Batsim process.
    Real {
        batsim: PathBuf,
        workload: PathBuf,
        platform: PathBuf,
    },
}

fn run_bench(args: BenchArgs) -> anyhow::Result<()> {
    let peer = match (&args.batsim, &args.workload, &args.platform) {
        (Some(batsim), Some(workload), Some(platform)) => BenchPeer::Real {
            batsim: batsim.clone(),
            workload: workload.clone(),
            platform: platform.clone(),
        },
        _ => {
            let options = SyntheticOptions {
                procs: args.procs,
                jobs: args.jobs,
                duration: Time::from_secs(i64::from(args.days) * 86_400),
                utilization: 0.7,
                seed: args.seed,
                first_id: 1,
            };
            let jobs = hpc_workload(&options);
            let mut text = Vec::new();
            interstice_swf::batsim_json::write_workload(&jobs, args.procs, &mut text)?;
            BenchPeer::Tiny(Workload::from_json(
                std::str::from_utf8(&text)?,
                "w0",
                "synthetic.json",
            )?)
        }
    };
    let dir = std::env::temp_dir().join(format!("interstice-batsim-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let endpoint = format!("ipc://{}/sched.sock", dir.display());
    let server_options = ServerOptions {
        endpoint: endpoint.clone(),
        timeout: Some(Duration::from_secs(60)),
        driver_uid: None,
        allow_remote: false,
    };
    let mut config = AdapterConfig::default();
    config.engine.policy = Some(args.policy);
    let server = std::thread::spawn(move || {
        let mut session = Session::new(config);
        serve(&server_options, &mut session).map(|report| (report, session.schedule_time()))
    });
    let started = Instant::now();
    let peer_result = match &peer {
        BenchPeer::Tiny(workload) => driver::drive(workload, &DriverConfig::new(endpoint))
            .context("the driver failed")
            .and_then(|report| {
                outln!("METRIC:batsim_jobs:{}:jobs", args.jobs)?;
                outln!("METRIC:batsim_procs:{}:procs", args.procs)?;
                outln!("METRIC:batsim_executions:{}:jobs", report.executions.len())?;
                Ok(None)
            }),
        BenchPeer::Real {
            batsim,
            workload,
            platform,
        } => run_real_batsim(batsim, workload, platform, &endpoint, &dir).map(Some),
    };
    let wall = started.elapsed();
    let served = server
        .join()
        .map_err(|_| anyhow::anyhow!("the adapter thread panicked"))?;
    let _ = std::fs::remove_dir_all(&dir);
    let batsim_cpu = peer_result?;
    let (served, schedule_time) = served.context("the adapter failed")?;
    let messages = served.messages.max(1) as f64;
    outln!("METRIC:batsim_policy:{}:name", args.policy)?;
    outln!("METRIC:batsim_messages:{}:messages", served.messages)?;
    if let Some(cpu) = served.thread_cpu {
        outln!("METRIC:batsim_adapter_cpu_total:{:.3}:s", cpu.as_secs_f64())?;
        outln!(
            "METRIC:batsim_adapter_cpu_per_message:{:.2}:us",
            cpu.as_secs_f64() * 1e6 / messages
        )?;
        if let Some(batsim_cpu) = batsim_cpu {
            outln!("METRIC:batsim_real_cpu_total:{:.3}:s", batsim_cpu.as_secs_f64())?;
            outln!(
                "METRIC:batsim_real_cpu_per_message:{:.2}:us",
                batsim_cpu.as_secs_f64() * 1e6 / messages
            )?;
            let share = cpu.as_secs_f64() / (cpu + batsim_cpu).as_secs_f64().max(1e-9);
            outln!("METRIC:batsim_adapter_cpu_share:{:.1}:%", share * 100.0)?;
        }
    }
    outln!(
        "METRIC:batsim_adapter_busy_per_message:{:.2}:us",
        served.busy.as_secs_f64() * 1e6 / messages
    )?;
    outln!(
        "METRIC:batsim_engine_schedule_per_message:{:.2}:us",
        schedule_time.as_secs_f64() * 1e6 / messages
    )?;
    outln!(
        "METRIC:batsim_protocol_busy_per_message:{:.2}:us",
        served.busy.saturating_sub(schedule_time).as_secs_f64() * 1e6 / messages
    )?;
    outln!("METRIC:batsim_wall_total:{:.3}:s", wall.as_secs_f64())?;
    Ok(())
}

/// Run a real Batsim against the adapter at `endpoint`; its CPU time (user
/// plus system) once it exited 0.
fn run_real_batsim(
    batsim: &Path,
    workload: &Path,
    platform: &Path,
    endpoint: &str,
    dir: &Path,
) -> anyhow::Result<Duration> {
    let status = std::process::Command::new(batsim)
        .arg("-p")
        .arg(platform)
        .arg("-w")
        .arg(workload)
        .arg("-e")
        .arg(dir.join("out"))
        .args(["-s", endpoint, "-q"])
        .status()
        .with_context(|| format!("cannot run {}", batsim.display()))?;
    if !status.success() {
        bail!("{} failed ({status})", batsim.display());
    }
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .context("cannot read Batsim's CPU time")?;
    let seconds = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec().max(0) as u64) + Duration::from_micros(t.tv_usec().max(0) as u64)
    };
    Ok(seconds(usage.user_time()) + seconds(usage.system_time()))
}
