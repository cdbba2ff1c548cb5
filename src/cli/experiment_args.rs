//! The flags that say which workload a simulation replays and which cloud
//! jobs it injects, declared once: [`TraceArgs`] is flattened into `replay`
//! and `sweep`, [`CloudArgs`] into `replay` and `batsim`. `sweep` takes lists
//! of the cloud-job values instead, with the same defaults
//! ([`interstice_swf::defaults`]).

use super::engine_args::{parse_factor, parse_procs_choice, parse_runtime, parse_seconds};
use interstice_swf::defaults;
use interstice_swf::inject::{ProcsChoice, RuntimeSpec};
use interstice_swf::{ClipTarget, CloudSpec, TraceSpec};
use std::path::PathBuf;

/// The HPC trace and how it is cut and clipped.
#[derive(clap::Args, Clone, Debug)]
pub struct TraceArgs {
    /// The workload: SWF (plain or .gz) or a Batsim workload JSON (from `swf inject`).
    pub workload: PathBuf,
    /// Processors of the machine (default: the workload's machine size).
    #[arg(long)]
    pub procs: Option<u32>,
    /// Multiply every HPC walltime by this factor.
    #[arg(long, value_parser = parse_factor, default_value_t = defaults::WALLTIME_FACTOR)]
    pub walltime_factor: f64,
    /// Only replay the jobs submitted in the first S seconds after the workload's first submission.
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub until: Option<f64>,
    /// Clip HPC jobs wider than the area (`--clip`, `--clip=area`, as the thesis does) or the machine
    /// (`--clip=machine`) to it.
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "area")]
    pub clip: Option<ClipTarget>,
    /// Skip bad workload lines (counted in the summary) instead of stopping at the first.
    #[arg(long)]
    pub lenient: bool,
}

impl TraceArgs {
    /// The trace of a run whose convergence area is `conv` processors
    /// (`None`: the whole machine).
    pub fn spec(&self, conv: Option<u32>) -> TraceSpec {
        TraceSpec {
            workload: self.workload.clone(),
            procs: self.procs,
            conv,
            walltime_factor: self.walltime_factor,
            until: self.until,
            clip: self.clip,
            lenient: self.lenient,
        }
    }
}

/// The shape of each injected cloud job (how often they come is the command's own flag).
#[derive(clap::Args, Clone, Debug)]
pub struct CloudArgs {
    /// Processors of each cloud job: a count (4), a uniform list (1,2,4) or weights (1:0.5,2:0.3,4:0.2).
    #[arg(long, value_name = "H", value_parser = parse_procs_choice, default_value = defaults::CLOUD_PROCS)]
    pub cloud_procs: ProcsChoice,
    /// Walltime of each cloud job, seconds.
    #[arg(long, value_name = "W", value_parser = parse_seconds, default_value_t = defaults::CLOUD_WALLTIME_SECS)]
    pub cloud_walltime: f64,
    /// Actual run time of each cloud job: `walltime`, seconds, `0.1w`, `uniform:LO:HI`, `exp:MEAN`.
    /// As in Batsim (a `delay` profile), a job whose run time is not below its walltime is killed
    /// at its walltime (COMPLETED_WALLTIME_REACHED), so `walltime` makes every cloud job end killed.
    #[arg(long, value_name = "R", value_parser = parse_runtime, default_value = defaults::CLOUD_RUNTIME)]
    pub cloud_runtime: RuntimeSpec,
    /// Slack factor f: each cloud job's SLO is f × its walltime.
    #[arg(long, value_name = "F", value_parser = parse_factor, default_value_t = defaults::SLACK)]
    pub slack: f64,
    /// Seed of the cloud jobs' random draws (processors, run times).
    #[arg(long, value_name = "N", default_value_t = defaults::SEED)]
    pub seed: u64,
}

impl CloudArgs {
    /// Cloud jobs of this shape, one every `interval` seconds.
    pub fn spec(&self, interval: f64) -> CloudSpec {
        CloudSpec {
            interval,
            procs: self.cloud_procs.clone(),
            walltime: self.cloud_walltime,
            runtime: self.cloud_runtime,
            slack: self.slack,
            seed: self.seed,
        }
    }
}
