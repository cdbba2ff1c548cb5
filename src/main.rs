//! `interstice`: the command-line entry point. It only parses arguments,
//! composes the library crates and turns the final error into an exit code.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cli;

/// mimalloc instead of the system allocator: a replay allocates and frees a
/// record per job across its threads, which glibc's arenas serialise.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Sell the idle holes of an HPC batch schedule to evictable cloud jobs.
#[derive(Parser, Debug)]
#[command(name = "interstice", version = version(), about, long_about = None, propagate_version = true, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `--version`: `0.1.0 (abc123def456)`, the package version and the source
/// revision. The revision is the one the daemon reports in
/// `interstice_build_info` (computed once, by `daemon/build.rs`).
fn version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        format!(
            "{} ({})",
            env!("CARGO_PKG_VERSION"),
            interstice_daemon::metrics::REVISION
        )
    })
}

/// What every subcommand shares, shown under `interstice --help`.
const AFTER_HELP: &str = "\
Durations: every flag that takes seconds also takes numbers with units d, h, m, s in that order: \
90, 1.5, 90s, 3m, 1h30m, 2d.\n\n\
Exit status: 0 success, 1 internal error, 2 usage (a bad flag or value, --out not empty without \
--force), 3 refused by the daemon (submit rejected), 4 bad input file, 5 cannot write the output, \
6 daemon unreachable or unavailable, 7 not finished yet (sweep collect before every cell ran), \
8 submit --wait: the job failed (its exit code is printed), 9 submit --wait: the job ended without \
completing (timeout, evicted, cancelled, lost).";

#[derive(Subcommand, Debug)]
enum Command {
    /// Read, inspect, convert and enrich SWF workload traces.
    #[command(subcommand)]
    Swf(cli::swf::SwfCommand),
    /// Simulate a whole workload (SWF or Batsim JSON) with the engine, no outside simulator.
    Replay(Box<cli::replay::ReplayArgs>),
    /// Many replays over the cartesian product of parameter lists, in parallel, into one table.
    Sweep(Box<cli::sweep::SweepArgs>),
    /// A sweep's results as an HTML page with PNG and SVG figures, beside the thesis's numbers.
    Report(cli::report::ReportArgs),
    /// Service classes on a platform of hosts: QoS-driven, priority, owner-share or OSEP eviction;
    /// seed 001's study and its request traces; seed 002's evaluation.
    #[command(subcommand)]
    Qos(cli::qos::QosCommand),
    /// Multi-criteria decision making (seed 003): AHP weights from judgements, and the container
    /// scheduler on a data-center topology (fat-trees, AHP/TOPSIS, queue orders, resubmission).
    #[command(subcommand)]
    Mcdm(cli::mcdm::McdmCommand),
    /// Be the external scheduler of a real Batsim 4 over ZeroMQ (or make a platform).
    Batsim(Box<cli::batsim::BatsimArgs>),
    #[command(flatten)]
    Client(cli::client::ClientCommand),
    /// Benchmarks: numbers with units, one per line.
    #[command(subcommand)]
    Bench(cli::bench::BenchCommand),
    /// Write man pages and shell completions into DIR (packaging/build-deb.sh).
    #[command(name = "__generate", hide = true)]
    Generate(cli::generate::GenerateArgs),
}

fn main() -> ExitCode {
    // `sweep --grid FILE`: the file's options join the command line first.
    let argv = match cli::grid::expand(std::env::args_os().collect()) {
        Ok(argv) => argv,
        Err(err) => {
            eprintln!("interstice: {err}");
            return cli::exit::Exit::Input.into();
        }
    };
    let result = match cli::sweep::collect_command(&argv) {
        Some(collect) => cli::sweep::collect(collect),
        None => match Cli::parse_from(argv).command {
            Command::Swf(cmd) => cli::swf::run(cmd),
            Command::Replay(args) => cli::replay::run(*args),
            Command::Sweep(args) => cli::sweep::run(*args),
            Command::Report(args) => cli::report::run(args),
            Command::Qos(cmd) => cli::qos::run(cmd),
            Command::Mcdm(cmd) => cli::mcdm::run(cmd),
            Command::Batsim(args) => cli::batsim::run(*args),
            Command::Client(cmd) => cli::client::run(cmd),
            Command::Bench(cmd) => cli::bench::run(cmd),
            Command::Generate(args) => cli::generate::run(args, <Cli as clap::CommandFactory>::command()),
        },
    }
    .and_then(|()| {
        // What `out!` left in stdout's buffer (no newline yet).
        anyhow::Context::context(
            std::io::Write::flush(&mut std::io::stdout()),
            cli::exit::WriteFailed::stdout(),
        )
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("interstice: {err:#}");
            cli::exit::classify(&err).into()
        }
    }
}

/// A closed stdout pipe (`interstice swf cat x | head`) is not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn version_names_the_revision() {
        let err = Cli::try_parse_from(["interstice", "--version"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::DisplayVersion);
        let revision = interstice_daemon::metrics::REVISION;
        assert!(!revision.is_empty());
        assert_eq!(
            err.to_string().trim_end(),
            format!("interstice {} ({revision})", env!("CARGO_PKG_VERSION"))
        );
    }

    #[test]
    fn help_documents_durations_and_exit_statuses() {
        let help = Cli::command().render_help().to_string();
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for expected in [
            "1h30m",
            "Exit status: 0 success",
            "4 bad input file",
            "6 daemon unreachable",
            "7 not finished yet",
            "8 submit --wait: the job failed",
        ] {
            assert!(help.contains(expected), "{expected} in\n{help}");
        }
    }
}
