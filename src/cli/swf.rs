//! `interstice swf …` (placeholder until the SWF toolkit lands).

/// SWF subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum SwfCommand {
    /// Workload statistics.
    Stats,
}

/// Arguments of `interstice bench swf`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {}

/// Run an SWF subcommand.
pub fn run(_cmd: SwfCommand) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}

/// Run the SWF benchmark.
pub fn bench(_args: BenchArgs) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}
