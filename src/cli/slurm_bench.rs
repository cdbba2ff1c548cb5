//! `interstice bench slurm`: reading and planning a large Slurm state, the
//! work the daemon's Slurm backend does at every read, timed on generated
//! command output (`squeue`, `scontrol show node`, `scontrol show
//! reservation`, as the backend asks for them): parse, map onto the
//! engine's processors, mirror into the engine — then one prediction on the
//! mirrored plan.

use anyhow::Context;
use interstice_core::{Engine, EngineConfig, Policy, Time};
use interstice_daemon::backend::slurm::{EngineShape, SlurmOutput};
use interstice_swf::SplitMix64;
use std::fmt::Write;
use std::num::NonZeroU32;
use std::time::{Duration, Instant};

/// Arguments of `interstice bench slurm`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "The state: NODES nodes of CPUS CPUs, in partitions hpc and cloud (the cloud \
    partition is every node, so the area is the whole cluster), 2 % draining and 1 % down; JOBS jobs, \
    the first 30 % running (whole nodes, 1–8, packed from the first node, while nodes remain), the \
    others pending, planned as Slurm's backfill would (each on the nodes free soonest, at 60 s \
    resolution) when that is within a day, else without a plan; two \
    maintenance reservations of 50 nodes. Each timed read parses the three outputs, maps the jobs onto \
    (node, cpu) processors and mirrors the plan into an engine of NODES × CPUS processors."
)]
pub struct SlurmArgs {
    /// Nodes of the cluster.
    #[arg(long, default_value = "2000", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub nodes: u32,
    /// CPUs per node.
    #[arg(long, default_value = "16", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub cpus: u32,
    /// Jobs in the queue.
    #[arg(long, default_value = "10000", value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub jobs: u32,
    /// Timed reads; the fastest is reported.
    #[arg(long, value_name = "N", default_value = "5")]
    pub repeat: NonZeroU32,
    /// Seed of the generated state.
    #[arg(long, default_value = "2017")]
    pub seed: u64,
}

/// The instant the state is read at (epoch seconds).
const NOW: i64 = 1_800_000_000;

/// A Slurm host list of nodes `first..first + count` (`n[0001-0004]`).
fn hostlist(first: u32, count: u32) -> String {
    if count == 1 {
        format!("n{:05}", first + 1)
    } else {
        format!("n[{:05}-{:05}]", first + 1, first + count)
    }
}

/// Generated output of the three commands (see the command's help).
fn generate(args: &SlurmArgs) -> SlurmOutput {
    let mut rng = SplitMix64::new(args.seed);
    let mut out = SlurmOutput::default();
    for node in 0..args.nodes {
        let state = match rng.below(100) {
            0 => "DOWN*",
            1 | 2 => "IDLE+DRAIN",
            _ => "MIXED",
        };
        let _ = writeln!(
            out.nodes,
            "NodeName={} Arch=x86_64 CoresPerSocket={c} CPUAlloc=0 CPUEfctv={c} CPUTot={c} CPULoad=0.00 \
             State={state} ThreadsPerCore=1 Partitions=hpc,cloud",
            hostlist(node, 1),
            c = args.cpus
        );
    }
    // A plan as Slurm's backfill makes one: each node is free again at
    // `free_at`; running jobs hold whole nodes from the first on; each
    // pending job takes the nodes free soonest, from when the last of them is
    // (at 60 s resolution), if that is within the day's window, else it is
    // left unplanned.
    let mut free_at = vec![NOW; args.nodes as usize];
    let mut cursor = 0u32;
    for id in 0..args.jobs {
        let width = (1 + (rng.below(8) * rng.below(8) / 8) as u32).min(args.nodes);
        let cpus = width * args.cpus;
        let limit = 600 + rng.below(86_400 - 600) as i64;
        let submit = NOW - rng.below(86_400) as i64;
        let line = if id < args.jobs * 3 / 10 && cursor + width <= args.nodes {
            let start = NOW - rng.below(limit as u64) as i64;
            for node in cursor..cursor + width {
                free_at[node as usize] = start + limit;
            }
            let nodes = hostlist(cursor, width);
            cursor += width;
            format!(
                "RUNNING|{cpus}|{limit}|{submit}|{start}|{}|None|{nodes}|(null)",
                start + limit
            )
        } else {
            let mut soonest: Vec<u32> = (0..args.nodes).collect();
            soonest.select_nth_unstable_by_key(width as usize - 1, |&n| (free_at[n as usize], n));
            soonest.truncate(width as usize);
            let ready = soonest.iter().map(|&n| free_at[n as usize]).max().unwrap_or(NOW);
            let start = NOW + ((ready - NOW).max(0) + 59) / 60 * 60;
            if start < NOW + 86_400 {
                for &node in &soonest {
                    free_at[node as usize] = start + limit;
                }
                soonest.sort_unstable();
                let nodes = soonest
                    .iter()
                    .map(|&n| hostlist(n, 1))
                    .collect::<Vec<_>>()
                    .join(",");
                format!(
                    "PENDING|{cpus}|{limit}|{submit}|{start}|{}|Resources||{nodes}",
                    start + limit
                )
            } else {
                format!("PENDING|{cpus}|{limit}|{submit}|N/A|N/A|Priority||(null)")
            }
        };
        // squeue prints the limit as [D-]HH:MM:SS; MM:SS is one of the forms it reads back.
        let mut fields: Vec<String> = line.split('|').map(str::to_string).collect();
        let seconds: i64 = fields[2].parse().unwrap_or(60);
        fields[2] = format!("{}:{:02}", seconds / 60, seconds % 60);
        let _ = writeln!(out.squeue, "{}|hpc|{}|bench|(null)", id + 1, fields.join("|"));
    }
    for (i, first) in [0, args.nodes / 2].into_iter().enumerate() {
        let count = 50.min(args.nodes - first);
        let _ = writeln!(
            out.reservations,
            "ReservationName=maint{i} StartTime={} EndTime={} Duration=1-00:00:00 Nodes={} NodeCnt={count} \
             Flags=MAINT,SPEC_NODES Users=root State=INACTIVE",
            NOW + 3600,
            NOW + 3600 + 86_400,
            hostlist(first, count)
        );
    }
    out
}

/// Times one read of a generated state; prints `METRIC:` lines.
pub fn bench(args: SlurmArgs) -> anyhow::Result<()> {
    let output = generate(&args);
    let procs = args
        .nodes
        .checked_mul(args.cpus)
        .filter(|&p| p <= EngineConfig::MAX_PROCS)
        .context("--nodes × --cpus exceeds the engine's largest platform")?;
    let shape = EngineShape {
        procs,
        conv_procs: procs,
    };
    let now = Time::from_secs(NOW);
    let mut best: Option<[Duration; 3]> = None;
    let mut engine = None;
    let mut counts = None;
    for _ in 0..args.repeat.get() {
        let started = Instant::now();
        let state = output.parse()?;
        let parsed = started.elapsed();
        let read = state.plan("cloud", "hpc", shape, NOW)?;
        let mapped = started.elapsed();
        let mut fresh = Engine::new(EngineConfig::new(procs, Policy::Conservative))?;
        fresh.mirror(now, &read.plan)?;
        let mirrored = started.elapsed();
        let times = [parsed, mapped - parsed, mirrored - mapped];
        if best.map_or(true, |b| mirrored < b.iter().sum::<std::time::Duration>()) {
            best = Some(times);
        }
        counts = Some(read.counts);
        engine = Some(fresh);
    }
    let (Some([parse, map, mirror]), Some(engine), Some(counts)) = (best, engine, counts) else {
        anyhow::bail!("--repeat must be at least 1");
    };
    let predict_started = Instant::now();
    let prediction = engine.predict(args.cpus, Time::from_secs(3600), None, now);
    let predict = predict_started.elapsed();
    println!("METRIC:slurm_nodes:{}:nodes", args.nodes);
    println!("METRIC:slurm_processors:{procs}:processors");
    println!("METRIC:slurm_jobs:{}:jobs", args.jobs);
    println!("METRIC:slurm_running_jobs:{}:jobs", counts.running);
    println!("METRIC:slurm_planned_jobs:{}:jobs", counts.planned);
    println!("METRIC:slurm_unplanned_jobs:{}:jobs", counts.unplanned);
    println!("METRIC:slurm_parse_seconds:{:.4}:s", parse.as_secs_f64());
    println!("METRIC:slurm_map_seconds:{:.4}:s", map.as_secs_f64());
    println!("METRIC:slurm_mirror_seconds:{:.4}:s", mirror.as_secs_f64());
    println!(
        "METRIC:slurm_read_and_plan_seconds:{:.4}:s",
        (parse + map + mirror).as_secs_f64()
    );
    println!("METRIC:slurm_predict_seconds:{:.6}:s", predict.as_secs_f64());
    println!(
        "METRIC:slurm_predicted_start_after_now:{}:s",
        prediction.start.map_or_else(
            || "null".to_string(),
            |s| format!("{:.0}", (s - now).as_secs_f64())
        )
    );
    Ok(())
}
