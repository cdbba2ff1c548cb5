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
}

/// Run the chosen benchmark.
pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Swf(args) => super::swf::bench(args),
        BenchCommand::Replay(args) => super::replay::bench(args),
        BenchCommand::Predict(args) => super::client::bench(args),
    }
}
