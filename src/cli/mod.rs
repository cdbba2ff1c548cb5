//! One module per subcommand group; each turns its arguments into calls on the library crates.

pub mod batsim;
pub mod bench;
pub mod client;
pub mod engine_args;
pub mod replay;
pub mod sweep;
pub mod swf;
