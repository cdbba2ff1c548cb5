//! `intersticed`: the convergence-area node daemon.
//!
//! It drives an [`interstice_core::Engine`] with wall-clock time, admits
//! cloud jobs over an HTTP/JSON API on a Unix socket (predict, accept or
//! counter-offer), runs the admitted ones as local processes, evicts them when
//! HPC work needs their processors, keeps every decision in SQLite and exports
//! Prometheus metrics.
//!
//! # Tour
//!
//! - [`config`]: the YAML config and its validation.
//! - [`server`]: the lifecycle (listeners, signals, shutdown); [`state_dir`]:
//!   the state directory, made without following a link; [`lock`]: one
//!   daemon per state directory.
//! - [`listen`]: the listeners' accept loops (what TCP serves, connection
//!   limits, idle timeouts).
//! - [`api`]: the HTTP routes; their JSON types and the blocking client of
//!   the CLI, the tests and the plugins are in `interstice_api`.
//! - [`actor`]: the one thread that owns the engine, the store and the processes;
//!   [`clock`]: where its time comes from (the wall clock, or a manual one in tests).
//! - [`backend`]: where the HPC plan comes from (embedded replay, plugin, Slurm).
//! - [`datacenter`]: a member's link to its broker, and the broker role
//!   (several daemons as one data center).
//! - [`exec`]: process launch and signals; [`cgroup`]: each job's cgroup;
//!   [`identity`]: who a job runs as; [`node`]: real CPU/memory load;
//!   [`store`]: SQLite; [`metrics`]: Prometheus.
#![deny(missing_docs)]

pub mod actor;
pub mod api;
pub mod backend;
pub mod cgroup;
pub mod classes;
pub mod cli;
pub mod clock;
pub mod config;
pub mod datacenter;
pub mod exec;
pub mod fd_limit;
pub mod identity;
pub mod listen;
pub mod lock;
pub mod metrics;
pub mod node;
pub mod reload;
pub mod server;
pub mod state_dir;
pub mod store;
pub mod tls;
