//! `intersticed`: the convergence-area node daemon (see the crate docs and
//! daemon/README.md). Parses flags, loads the config, runs the server.

use anyhow::Context;
use clap::Parser;
use interstice_daemon::cli::Args;
use interstice_daemon::config::log_level;
use interstice_daemon::exec::{check_helper, exec_wrapper, CHECK_HELPER_ARG, EXEC_WRAPPER_ARG};
use interstice_daemon::server::{self, Overrides};
use std::process::ExitCode;

fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().collect();
    if raw.get(1).map(String::as_str) == Some(EXEC_WRAPPER_ARG) {
        return ExitCode::from(exec_wrapper(&raw[2..]).clamp(0, 255) as u8);
    }
    if raw.get(1).map(String::as_str) == Some(CHECK_HELPER_ARG) {
        return ExitCode::from(check_helper(&raw[2..]).clamp(0, 255) as u8);
    }
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("intersticed: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    let overrides = Overrides {
        socket: args.socket,
        listen: args.listen,
        state_dir: args.state,
    };
    let config = server::load_config(&args.config, &overrides)?;
    if args.check_config {
        // The checks start-up makes before it changes anything.
        server::preflight(&config)?;
        println!("{}: ok", args.config.display());
        return Ok(());
    }
    let level = log_level(&config.log_level).unwrap_or(tracing::Level::INFO);
    tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(server::run(config, args.config, overrides))?;
    Ok(())
}
