//! `interstice replay` (placeholder until the engine lands).

/// Replay arguments.
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {}

/// Arguments of `interstice bench replay`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {}

/// Run a replay.
pub fn run(_args: ReplayArgs) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}

/// Run the replay benchmark.
pub fn bench(_args: BenchArgs) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}
