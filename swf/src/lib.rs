//! Workload formats for Interstice: the Standard Workload Format (SWF) of the
//! Parallel Workloads Archive, Batsim 4 workload JSON, cloud-job injection and
//! workload statistics.
//!
//! # Tour
//!
//! - [`SwfReader`] streams an SWF trace (plain, gzip, or `-` for stdin) in
//!   constant memory: a typed [`Header`] up front, then an iterator of
//!   [`Record`]s (the 18 fields, `-1` read as `None`). Errors name the file,
//!   line, field and value:
//!   `KTH.swf:1042: field 5 (allocated processors): "abc" is not a number`.
//!   [`Strictness::Strict`] stops at the first bad line; [`Strictness::Lenient`]
//!   skips bad lines, counts them and keeps the first few messages.
//! - [`write_trace`] (and [`Header::write_to`], [`Record::write_to`]) write
//!   normalised SWF; reading it back gives equal records and header.
//! - [`extract`] turns records into engine [`Job`]s with the rules below;
//!   [`JobStream`] does it while streaming; [`load_workload`] loads a whole
//!   SWF or Batsim JSON workload, sorted; [`record_of`] is the way back, to
//!   write generated jobs as a trace.
//! - [`batsim_json`] writes and reads Batsim input workloads (with the cloud
//!   jobs' classes and tenants, [`label`]); [`inject`] adds
//!   cloud jobs at a regular interval; [`stats`] summarises a workload.
//! - [`experiment`] loads an experiment's trace (cut, repeated, clipped and
//!   checked once) and adds its cloud jobs; [`defaults`] is the one table of
//!   experiment defaults (seed, slack, resubmissions, λ, τ, α).
//! - [`request_trace`] reads and writes the request-trace CSV of the
//!   service-class studies; [`google_trace`] turns Google's 2011 cluster
//!   trace (task and machine events) into it; [`google_like`] generates
//!   Google-like samples from documented parameters and a seed.
//! - [`maintenance`] reads maintenance windows (`--maintenance FILE`, the
//!   daemon's `engine.maintenance`); [`beta`] spells the thesis predictor's
//!   `β` (`30` or `disqualify`).
//!
//! # Job extraction rules
//!
//! Used by every command and by the replay simulator:
//!
//! - processors = allocated processors (field 5) if > 0, else requested (field 8);
//! - walltime = requested time (field 9) if > 0, else the run time (field 4),
//!   times [`ExtractOptions::walltime_factor`];
//! - records with an unknown submit time, a run time ≤ 0 (or unknown), or
//!   processors ≤ 0 (or unknown) are skipped and counted, by reason;
//! - jobs wider than the machine (the header's `MaxProcs`, else `MaxNodes`, or
//!   [`ExtractOptions::machine_procs`]) are rejected (an error in strict mode,
//!   skipped and counted in lenient mode) unless [`ExtractOptions::clip`] `= M`
//!   clips them to `M` processors;
//! - each job is `Job { id: field 1, submit: field 2, walltime, runtime:
//!   Some(field 4), procs, kind: Hpc, slo: None }`.
//!
//! # Example
//!
//! ```
//! use interstice_swf::{load_workload_from, ExtractOptions};
//! use interstice_core::Time;
//!
//! let trace = "; MaxProcs: 8\n\
//!              1 0  5 100 4 -1 -1 4 300 -1 1 1 1 -1 -1 -1 -1 -1\n\
//!              2 10 0  -1 2 -1 -1 2 300 -1 0 1 1 -1 -1 -1 -1 -1\n";
//! let w = load_workload_from(trace.as_bytes(), "mini.swf", &ExtractOptions::new()).unwrap();
//! assert_eq!(w.machine_procs, Some(8));
//! assert_eq!(w.jobs.len(), 1);
//! assert_eq!(w.jobs[0].walltime, Time::from_secs(300));
//! assert_eq!(w.stats.skipped_runtime, 1);
//! ```
#![deny(missing_docs)]

pub mod area_schedule;
pub mod batsim_json;
pub mod beta;
pub mod container_requests;
pub mod datacenter;
pub mod defaults;
pub mod error;
pub mod experiment;
pub mod extract;
pub mod google_like;
pub mod google_trace;
pub mod header;
mod inflate;
pub mod inject;
pub mod input;
pub mod input_file;
pub mod jobs;
pub mod judgements;
pub mod label;
mod load;
pub mod maintenance;
pub mod merge;
pub mod osep_eval;
pub mod qos;
pub mod qos_study;
pub mod reader;
pub mod record;
pub mod request_trace;
pub mod rng;
pub mod stats;
pub mod streamed;
#[cfg(test)]
mod test_jobs;
pub mod topology;
mod workload;
pub mod writer;

pub use area_schedule::AreaScheduleFile;
pub use batsim_json::{JobDescription, JobFieldError, Profile};
pub use error::{LineError, SwfError};
pub use experiment::{arrivals, load_trace, ClipTarget, CloudSpec, LoadedTrace, TraceSpec, WorkloadError};
pub use extract::{record_of, ExtractOptions, ExtractStats, SkipReason};
pub use header::Header;
pub use inject::{inject_cloud_jobs, CloudJobs, InjectOptions, ProcsChoice, RuntimeSpec, RUNTIME_SEED_MIX};
pub use interstice_core::Job;
pub use jobs::JobStream;
pub use load::{load_workload, load_workload_from};
pub use maintenance::{MaintenanceFile, WindowError};
pub use merge::merge_by_submit;
pub use reader::{Strictness, SwfReader};
pub use record::Record;
pub use rng::SplitMix64;
pub use stats::{StatsBuilder, WorkloadStats};
pub use streamed::{stream_trace, Interrupted, StreamedJobs, StreamedTrace};
pub use topology::{McdmFile, TopologyFileError};
pub use workload::Workload;
pub use writer::write_trace;
