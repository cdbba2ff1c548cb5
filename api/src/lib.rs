//! What `intersticed` and its clients share, in one place.
//!
//! The daemon serves an HTTP/JSON API on a Unix socket; the `interstice` CLI,
//! the C ABI (`libinterstice_ffi.so`) and the Slurm plugins talk to it. Each
//! rule of that conversation has one definition here:
//!
//! - [`wire`]: the request and answer types of every route (serde only);
//! - [`paths`]: the default socket ([`paths::DEFAULT_SOCKET`]) and where the
//!   `job_submit` plugin finds its settings;
//! - [`client`]: the one blocking HTTP/1.1 client over the Unix socket (or a
//!   TCP listener, [`Endpoint`]), with a deadline on the whole exchange and
//!   bounded answers ([`Client`]);
//! - [`command`]: running Slurm's commands, bounded in time and output and
//!   never stuck on a full pipe ([`command::run_bounded`]);
//! - [`slurm`]: the text formats the daemon's Slurm backend and the plugins
//!   share (the job comment marker, Slurm durations, the Slurm version number).
//!
//! The SLO a job gets when none is given is the engine's rule,
//! `interstice_core::slo_for` with `interstice_core::DEFAULT_SLACK`.
//!
//! This crate is linked into the Slurm plugins, which run inside `slurmctld`
//! and `slurmstepd`: it depends on serde, serde_json and thiserror only, and
//! never on an async runtime or an HTTP framework.
//!
//! ```no_run
//! use interstice_api::wire::PredictRequest;
//! use interstice_api::{paths, Client};
//! use std::time::Duration;
//!
//! let client = Client::new(paths::DEFAULT_SOCKET, Duration::from_millis(50));
//! let request = PredictRequest { procs: 2, walltime: 60.0, slo: 120.0, admission: false, features: vec![], class: None, bytes: None };
//! let prediction = client.predict(&request)?;
//! println!("{}", prediction.decision);
//! # Ok::<(), interstice_api::ClientError>(())
//! ```
#![deny(missing_docs)]

pub mod client;
pub mod command;
pub mod paths;
pub mod peer;
pub mod slurm;
pub mod tls;
pub mod wire;

pub use client::{Client, ClientError, Endpoint};
