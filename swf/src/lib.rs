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

pub mod batsim_json;
pub mod beta;
pub mod datacenter;
pub mod defaults;
pub mod error;
pub mod experiment;
pub mod extract;
pub mod header;
pub mod inject;
pub mod input;
pub mod jobs;
pub mod label;
pub mod maintenance;
pub mod merge;
pub mod qos;
pub mod reader;
pub mod record;
pub mod rng;
pub mod stats;
pub mod writer;

pub use batsim_json::{JobDescription, JobFieldError, Profile};
pub use error::{LineError, SwfError};
pub use experiment::{arrivals, load_trace, ClipTarget, CloudSpec, LoadedTrace, TraceSpec, WorkloadError};
pub use extract::{record_of, ExtractOptions, ExtractStats, SkipReason};
pub use header::Header;
pub use inject::{inject_cloud_jobs, CloudJobs, InjectOptions, ProcsChoice, RuntimeSpec, RUNTIME_SEED_MIX};
pub use interstice_core::Job;
pub use jobs::JobStream;
pub use maintenance::{MaintenanceFile, WindowError};
pub use merge::merge_by_submit;
pub use reader::{Strictness, SwfReader};
pub use record::Record;
pub use rng::SplitMix64;
pub use stats::{StatsBuilder, WorkloadStats};
pub use writer::write_trace;

use std::io::BufRead;
use std::path::Path;

/// A whole workload in memory.
#[derive(Clone, Debug, Default)]
pub struct Workload {
    /// Jobs, sorted by submit time then id.
    pub jobs: Vec<Job>,
    /// The cloud jobs' classes and tenants a Batsim JSON gives (never an SWF's).
    pub labels: label::JobLabels,
    /// Machine size: [`ExtractOptions::machine_procs`], else the SWF header's
    /// `MaxProcs`/`MaxNodes` or the JSON's `nb_res`.
    pub machine_procs: Option<u32>,
    /// The SWF header (`None` for Batsim JSON).
    pub header: Option<Header>,
    /// What extraction kept and skipped.
    pub stats: ExtractStats,
}

impl Workload {
    /// Statistics of this workload.
    pub fn summary(&self) -> WorkloadStats {
        stats::workload_stats(&self.jobs, &self.stats, self.machine_procs.map(u64::from))
    }
}

/// Load an SWF trace or a Batsim workload JSON from `path` (`-` is stdin,
/// gzip is detected). JSON is recognised by a `.json` name or by content
/// starting with `{`.
pub fn load_workload(path: &Path, opts: &ExtractOptions) -> Result<Workload, SwfError> {
    let input = input::open(path)?;
    let is_json_name = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
    load(input.reader, &input.name, opts, is_json_name)
}

/// Like [`load_workload`], from an already decompressed reader named `name`.
pub fn load_workload_from<R: BufRead + 'static>(
    reader: R,
    name: &str,
    opts: &ExtractOptions,
) -> Result<Workload, SwfError> {
    load(Box::new(reader), name, opts, false)
}

fn load(
    mut reader: Box<dyn BufRead>,
    name: &str,
    opts: &ExtractOptions,
    is_json_name: bool,
) -> Result<Workload, SwfError> {
    let json = is_json_name
        || input::looks_like_json(&mut reader).map_err(|source| SwfError::Io {
            action: "read",
            path: name.into(),
            source,
        })?;
    if json {
        return batsim_json::read_workload(reader, name, opts);
    }
    let swf = SwfReader::new(reader, name, opts.mode)?;
    let mut stream = JobStream::new(swf, opts);
    let mut jobs = Vec::new();
    for job in stream.by_ref() {
        jobs.push(job?);
    }
    batsim_json::sort_jobs(&mut jobs);
    Ok(Workload {
        jobs,
        labels: label::JobLabels::new(),
        machine_procs: stream.machine_procs(),
        header: Some(stream.header().clone()),
        stats: stream.stats(),
    })
}
