//! `interstice batsim` (placeholder until the adapter lands).

/// Batsim arguments.
#[derive(clap::Args, Debug)]
pub struct BatsimArgs {}

/// Run the adapter.
pub fn run(_args: BatsimArgs) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}
