//! Batsim 4's protocol over ZeroMQ: `interstice batsim` is Batsim's external
//! scheduler (Batsim is the REQ side and connects; the adapter binds a REP
//! socket and answers every message with exactly one `{"now", "events"}`).
//!
//! - [`messages`]: parsing Batsim's JSON, writing the replies.
//! - [`classes`]: `--eviction`: running cloud jobs give way in an eviction
//!   policy's victim order, by their service classes.
//! - [`options`]: engine options (command line, Batsim's `--sched-cfg`) and cloud injection.
//! - [`session`]: the socket-free state machine: messages in, engine calls, reply events out.
//! - [`server`]: the ZeroMQ REP loop with timeout and disconnection detection.
//! - [`platform`]: SimGrid platform files for Batsim (`interstice batsim platform`).
//! - [`driver`]: a tiny Batsim (the REQ side) that runs a Batsim workload
//!   against any external scheduler, for tests and benchmarks where Batsim
//!   itself is not installed.
//!
//! ```
//! use interstice_batsim::protocol::{messages, session::{AdapterConfig, Session}};
//! use interstice_core::Policy;
//!
//! let mut config = AdapterConfig::default();
//! config.engine.policy = Some(Policy::Fcfs);
//! let mut session = Session::new(config);
//! let begins = br#"{"now": 0, "events": [{"timestamp": 0, "type": "SIMULATION_BEGINS", "data": {
//!     "compute_resources": [{"id": 0}, {"id": 1}], "config": {}}}]}"#;
//! let reply = session.handle(&messages::parse_message(begins).unwrap()).unwrap();
//! assert!(reply.events.is_empty());
//! ```

pub mod classes;
pub mod driver;
mod error_text;
pub mod messages;
pub mod options;
pub mod platform;
mod private_ipc;
pub mod server;
pub mod session;

pub use classes::{VictimOrder, VictimOrderError};
pub use interstice_swf::inject::RUNTIME_SEED_MIX;
pub use options::{CloudInjection, EngineOptions};
pub use server::{serve, ServeReport, ServerError, ServerOptions};
pub use session::{AdapterConfig, Reply, Session, SessionError};
