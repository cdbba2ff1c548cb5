//! Daemon client subcommands (placeholder until the daemon lands).

/// Client subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum ClientCommand {
    /// Health of the daemon.
    Health,
}

/// Arguments of `interstice bench predict`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {}

/// Run a client subcommand.
pub fn run(_cmd: ClientCommand) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}

/// Run the prediction benchmark.
pub fn bench(_args: BenchArgs) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}
