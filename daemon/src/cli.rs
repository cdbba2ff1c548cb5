//! `intersticed`'s command line, defined here rather than in the binary so
//! that `interstice __generate` renders its man page and shell completions
//! from the one definition ([`Args::command`] through `clap::CommandFactory`).

use crate::config::DEFAULT_CONFIG_PATH;
use clap::Parser;
use std::path::PathBuf;

/// The convergence-area node daemon: admits evictable cloud jobs into the idle
/// holes of the HPC plan and runs them on this node.
#[derive(Parser, Debug)]
#[command(name = "intersticed", version, about)]
pub struct Args {
    /// Config file (YAML).
    #[arg(long, value_name = "FILE", default_value = DEFAULT_CONFIG_PATH)]
    pub config: PathBuf,
    /// API Unix socket (overrides api.socket).
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// Loopback TCP listener ADDR:PORT (overrides api.listen).
    #[arg(long, value_name = "ADDR:PORT")]
    pub listen: Option<String>,
    /// State directory: SQLite database and job output (overrides state_dir).
    #[arg(long, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// Validate the config and exit.
    #[arg(long)]
    pub check_config: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Args::command().debug_assert();
        let args = Args::try_parse_from(["intersticed", "--check-config"]).unwrap();
        assert_eq!(args.config, PathBuf::from(DEFAULT_CONFIG_PATH));
        assert!(args.check_config);
        assert!(Args::try_parse_from(["intersticed", "--no-such-flag"]).is_err());
    }
}
