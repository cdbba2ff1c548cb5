//! `interstice bench …`: each benchmark lives with its subcommand group.

use clap::Subcommand;

/// Which benchmark to run.
#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// SWF parse throughput on a generated trace.
    Swf(super::swf::BenchArgs),
    /// A thesis-size replay (2,560 processors, a month, a cloud job every 10 s).
    Replay(super::replay::BenchArgs),
    /// Admission prediction latency and throughput on a large plan.
    Predict(super::client::BenchArgs),
    /// Whole HPC-only replays (parse, simulate, write) of a generated 50,000-job, 2,000-processor trace.
    Hpc(super::replay_bench::HpcArgs),
    /// HPC-only replays against a count-based FCFS and EASY in the bench, starts checked job by job.
    Limit(super::limit_bench::LimitArgs),
    /// The thesis's setting (machine = area, a cloud job every 10 s) on a real trace repeated 1–8 times.
    Scaling(super::replay_bench::ScalingArgs),
    /// One interstice command in a child process: wall and CPU seconds, its own peak memory.
    Measure(super::replay_bench::MeasureArgs),
    /// Reading and planning a 10,000-job, 2,000-node Slurm state, as the daemon's Slurm backend does.
    Slurm(super::slurm_bench::SlurmArgs),
    /// TOPSIS's cost: ranking 10,000 candidates; placing cloud jobs on a 10,240-processor area.
    Placement(super::placement_bench::PlacementArgs),
}

/// Run the chosen benchmark.
pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Swf(args) => super::swf::bench(args),
        BenchCommand::Replay(args) => super::replay::bench(args),
        BenchCommand::Predict(args) => super::client::bench(args),
        BenchCommand::Hpc(args) => super::replay_bench::bench_hpc(args),
        BenchCommand::Limit(args) => super::limit_bench::bench(args),
        BenchCommand::Scaling(args) => super::replay_bench::bench_scaling(args),
        BenchCommand::Measure(args) => super::replay_bench::measure(args),
        BenchCommand::Slurm(args) => super::slurm_bench::bench(args),
        BenchCommand::Placement(args) => super::placement_bench::bench(args),
    }
}
