//! One module per subcommand group; each turns its arguments into calls on the library crates.
//!
//! Commands print through [`out!`]/[`outln!`], never `print!`: a write error
//! (a full disk, a closed pipe) comes back as an error, which `main` turns
//! into a quiet exit for a closed pipe and a message naming stdout otherwise,
//! instead of the panic of `println!`.

use std::io::Write;

/// `print!` to stdout that returns write errors (`anyhow::Result<()>`).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!($($arg)*), false)
    };
}

/// `println!` to stdout that returns write errors (`anyhow::Result<()>`).
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!($($arg)*), true)
    };
}

/// Write `args` (and a newline) to stdout; errors name stdout.
pub fn write_stdout(args: std::fmt::Arguments<'_>, newline: bool) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_fmt(args)
        .and_then(|()| if newline { stdout.write_all(b"\n") } else { Ok(()) });
    anyhow::Context::context(written, exit::WriteFailed::stdout())
}

pub mod batsim;
pub mod bench;
pub mod client;
pub mod datacenter;
pub mod engine_args;
pub mod exit;
pub mod experiment_args;
pub mod flags;
pub mod generate;
pub mod grid;
pub mod limit_bench;
pub mod mcdm;
pub mod mcdm_bench;
pub mod mcdm_run;
pub mod placement_bench;
pub mod qos;
pub mod qos_study;
pub mod qos_trace;
pub mod replay;
pub mod replay_bench;
pub mod report;
pub mod show;
pub mod slurm_bench;
pub mod sweep;
pub mod swf;
