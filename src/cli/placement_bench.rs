//! `interstice bench placement`: what TOPSIS costs — ranking 10,000
//! candidates, and a cloud job's placement on a 10,240-processor area with
//! first-fit and with TOPSIS; with `--fat-tree-k`, seed 003's scalability
//! (`mcdm_bench`).

use super::client::percentile;
use anyhow::Context;
use interstice_core::placement::{self, Placement, Scores, Weights};
use interstice_core::{Decision, EndReason, Engine, EngineConfig, Job, JobId, JobKind, Policy, Time};
use interstice_swf::SplitMix64;
use std::time::{Duration, Instant};

/// The largest count a placement benchmark takes (each is allocated or
/// looped over: a typo of 4000000000 must not abort the process).
const BENCH_COUNT_MAX: u64 = 10_000_000;

/// `interstice bench placement` options.
#[derive(clap::Args, Debug)]
pub struct PlacementArgs {
    /// Candidates TOPSIS ranks at once.
    #[arg(long, default_value_t = 10_000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=BENCH_COUNT_MAX))]
    candidates: usize,
    /// Rankings timed.
    #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(1..=BENCH_COUNT_MAX as i64))]
    rankings: u32,
    /// Processors of the area the engine places cloud jobs on.
    #[arg(long, default_value_t = 10_240, value_parser = clap::value_parser!(u32).range(1..=BENCH_COUNT_MAX as i64))]
    procs: u32,
    /// HPC jobs running at first (half end before the cloud jobs come; a tenth as many wider
    /// ones then wait for the rest).
    #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(1..=BENCH_COUNT_MAX as i64))]
    jobs: u32,
    /// Cloud jobs placed (timed) with each placement.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..=BENCH_COUNT_MAX as i64))]
    placements: u32,
    /// Seed of the generated scores and plan.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Instead: seed 003's scalability — AHP and TOPSIS placing one request on each k-ary fat-tree.
    #[arg(long, value_delimiter = ',', value_name = "K,…")]
    fat_tree_k: Vec<usize>,
    /// With --fat-tree-k: the request sizes timed, containers.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,16,256,4096",
        requires = "fat_tree_k"
    )]
    containers: Vec<usize>,
    /// With --fat-tree-k: seconds a cell may take before larger ones are skipped.
    #[arg(long, default_value_t = 30.0, requires = "fat_tree_k")]
    budget: f64,
}

/// Run the placement benchmark.
pub fn bench(args: PlacementArgs) -> anyhow::Result<()> {
    if !args.fat_tree_k.is_empty() {
        return super::mcdm_bench::bench(&args.fat_tree_k, &args.containers, args.budget);
    }
    let mut rng = SplitMix64::new(args.seed);
    let weights = Weights::default();
    let scores: Vec<Scores> = (0..args.candidates)
        .map(|_| std::array::from_fn(|_| rng.below(1_000_000) as f64))
        .collect();
    let mut latencies = Vec::with_capacity(args.rankings as usize);
    let mut checksum = 0usize;
    for _ in 0..args.rankings {
        let t0 = Instant::now();
        let order = placement::order(&scores, &weights);
        latencies.push(t0.elapsed());
        checksum = checksum.wrapping_add(order.first().copied().unwrap_or(0));
    }
    latencies.sort();
    outln!(
        "TOPSIS: {} rankings of {} candidates (best: {})",
        args.rankings,
        args.candidates,
        checksum / args.rankings.max(1) as usize
    )?;
    outln!(
        "METRIC:topsis_rank_p50:{:.1}:us",
        micros(percentile(&latencies, 0.5))
    )?;
    outln!(
        "METRIC:topsis_rank_p99:{:.1}:us",
        micros(percentile(&latencies, 0.99))
    )?;
    outln!("METRIC:topsis_rank_candidates:{}:candidates", args.candidates)?;

    let mut p50 = Vec::new();
    for placement in Placement::ALL {
        let (latencies, started) = place_cloud_jobs(&args, placement)?;
        let median = micros(percentile(&latencies, 0.5));
        outln!(
            "{placement}: {} cloud jobs placed ({started} starts) on a {}-processor area planning {} HPC jobs",
            args.placements,
            args.procs,
            args.jobs
        )?;
        outln!(
            "METRIC:place_{}_p50:{median:.1}:us",
            placement.name().replace('-', "_")
        )?;
        outln!(
            "METRIC:place_{}_p99:{:.1}:us",
            placement.name().replace('-', "_"),
            micros(percentile(&latencies, 0.99))
        )?;
        p50.push(median);
    }
    if let [first_fit, topsis] = p50[..] {
        outln!(
            "METRIC:place_topsis_over_first_fit:{:.2}:ratio",
            topsis / first_fit
        )?;
    }
    Ok(())
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Time a pass that starts one cloud job (submit and schedule at one
/// instant), cloud job after cloud job, on a plan of HPC jobs.
fn place_cloud_jobs(args: &PlacementArgs, placement: Placement) -> anyhow::Result<(Vec<Duration>, usize)> {
    let mut config = EngineConfig::new(args.procs, Policy::Conservative);
    config.placement = placement;
    let mut engine = Engine::new(config).context("engine config")?;
    let mut rng = SplitMix64::new(args.seed);
    let mut id = 0u64;
    let mut job = |kind, procs, walltime: i64, submit: Time| {
        id += 1;
        Job {
            id: JobId(id),
            submit,
            walltime: Time::from_secs(walltime),
            walltime_enforced: true,
            runtime: None,
            procs,
            kind,
            slo: (kind == JobKind::Cloud).then(|| Time::from_secs(3 * walltime)),
        }
    };
    // Running HPC jobs fill the machine; every other one ends at once, so
    // about half the processors are idle now; wider HPC jobs then wait for
    // the rest, reserved at various times on processors idle now: candidates
    // with different margins before HPC work comes back.
    let width = (args.procs / args.jobs.max(1)).max(1);
    let mut running = Vec::new();
    for _ in 0..args.procs / width {
        let walltime = 3_600 + rng.below(86_400) as i64;
        let hpc = job(JobKind::Hpc, width, walltime, Time::ZERO);
        running.push(hpc.id);
        engine.submit(hpc).context("building the plan")?;
    }
    engine.schedule(Time::ZERO);
    let now = Time::from_secs(1);
    for id in running.iter().step_by(2) {
        engine
            .job_ended(*id, now, EndReason::Completed)
            .context("ending HPC jobs")?;
    }
    for _ in 0..args.jobs / 10 {
        let procs = args.procs / 2 + 1 + rng.below(u64::from(args.procs / 4)) as u32;
        let walltime = 600 + rng.below(7_200) as i64;
        engine
            .submit(job(JobKind::Hpc, procs, walltime, now))
            .context("building the plan")?;
    }
    engine.schedule(now);
    let mut latencies = Vec::with_capacity(args.placements as usize);
    let mut started = 0usize;
    for i in 0..args.placements {
        let now = Time::from_secs(2 + i64::from(i));
        let walltime = 60 + rng.below(3_600) as i64;
        let t0 = Instant::now();
        engine
            .submit(job(JobKind::Cloud, 1, walltime, now))
            .context("a cloud job")?;
        let decisions = engine.schedule(now);
        latencies.push(t0.elapsed());
        started += decisions
            .iter()
            .filter(|d| matches!(d, Decision::Start { .. }))
            .count();
    }
    latencies.sort();
    Ok((latencies, started))
}
