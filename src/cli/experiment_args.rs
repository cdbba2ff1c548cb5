//! The flags that say which workload a simulation replays and which cloud
//! jobs it injects, declared once: [`TraceArgs`] is flattened into `replay`
//! and `sweep`, [`CloudArgs`] into `replay` and `batsim`. `sweep` takes lists
//! of the cloud-job values instead, with the same defaults
//! ([`interstice_swf::defaults`]).

use super::engine_args::{parse_alpha, parse_factor, parse_procs_choice, parse_runtime, parse_seconds};
use interstice_swf::defaults;
use interstice_swf::inject::{ProcsChoice, RuntimeSpec};
use interstice_swf::{ClipTarget, CloudSpec, TraceSpec};
use std::num::NonZeroU32;
use std::path::PathBuf;

/// The HPC trace and how it is cut and clipped.
#[derive(clap::Args, Clone, Debug)]
pub struct TraceArgs {
    /// The workload: SWF (plain or .gz) or a Batsim workload JSON (from `swf inject`).
    // Optional here so that `replay --datacenter` can go without it; each
    // command's `input` argument group makes it required otherwise.
    pub workload: Option<PathBuf>,
    /// Processors of the machine (default: the workload's machine size).
    #[arg(long)]
    pub procs: Option<u32>,
    /// Multiply every HPC walltime by this factor.
    #[arg(long, value_parser = parse_factor, default_value_t = defaults::WALLTIME_FACTOR)]
    pub walltime_factor: f64,
    /// Start S seconds after the workload's first submission: earlier jobs are left out and the
    /// rest submitted S seconds earlier, so the run starts empty where the trace started
    /// (`--from 2592000 --until 2592000`: the trace's second 30 days).
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub from: Option<f64>,
    /// Only replay the jobs submitted in the first S seconds of the run (after the workload's
    /// first submission, plus --from).
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub until: Option<f64>,
    /// Clip HPC jobs wider than the area (`--clip`, `--clip=area`, as the thesis does) or the machine
    /// (`--clip=machine`) to it.
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "area")]
    pub clip: Option<ClipTarget>,
    /// Skip bad workload lines (counted in the summary) instead of stopping at the first.
    #[arg(long)]
    pub lenient: bool,
    /// Replay N copies of the trace (after --until) back to back, each a second after the
    /// previous one's last submission, with fresh job numbers: a longer trace of the same shape.
    #[arg(long, value_name = "N", default_value = "1")]
    pub repeat: NonZeroU32,
}

impl TraceArgs {
    /// The trace of a run whose convergence area is `conv` processors
    /// (`None`: the whole machine).
    pub fn spec(&self, conv: Option<u32>) -> TraceSpec {
        TraceSpec {
            workload: self.workload.clone().unwrap_or_default(),
            procs: self.procs,
            conv,
            walltime_factor: self.walltime_factor,
            from: self.from,
            until: self.until,
            clip: self.clip,
            lenient: self.lenient,
            repeat: self.repeat,
        }
    }
}

/// The shape of each injected cloud job (how often they come is the command's own flag).
#[derive(clap::Args, Clone, Debug, PartialEq)]
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
    /// Slack factor f: each cloud job's SLO is f × --cloud-walltime (its requested walltime, before --alpha).
    #[arg(long, value_name = "F", value_parser = parse_factor, default_value_t = defaults::SLACK)]
    pub slack: f64,
    /// Walltime reconciliation factor α (the thesis's wt = wt^c × α): each cloud job's walltime is
    /// α × --cloud-walltime; its SLO (f × --cloud-walltime) and run time do not change.
    #[arg(long, value_name = "F", value_parser = parse_alpha, default_value_t = defaults::ALPHA)]
    pub alpha: f64,
    /// Seed of the cloud jobs' random draws (processors, run times).
    #[arg(long, value_name = "N", default_value_t = defaults::SEED)]
    pub seed: u64,
}

impl CloudArgs {
    /// The flags that give another command these values (`bench scaling`
    /// runs `replay` with them): parsing them gives back `self`.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            "--cloud-procs".into(),
            self.cloud_procs.to_string(),
            "--cloud-walltime".into(),
            self.cloud_walltime.to_string(),
            "--cloud-runtime".into(),
            self.cloud_runtime.to_string(),
            "--slack".into(),
            self.slack.to_string(),
            "--alpha".into(),
            self.alpha.to_string(),
            "--seed".into(),
            self.seed.to_string(),
        ]
    }

    /// Cloud jobs of this shape, one every `interval` seconds.
    pub fn spec(&self, interval: f64) -> CloudSpec {
        CloudSpec {
            interval,
            procs: self.cloud_procs.clone(),
            walltime: self.cloud_walltime,
            runtime: self.cloud_runtime,
            slack: self.slack,
            alpha: self.alpha,
            seed: self.seed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Command {
        #[command(flatten)]
        cloud: CloudArgs,
    }

    fn parse(args: &[String]) -> CloudArgs {
        Command::try_parse_from(std::iter::once("x".to_string()).chain(args.iter().cloned()))
            .unwrap()
            .cloud
    }

    #[test]
    fn alpha_reconciles_the_walltime_of_the_spec_and_must_be_positive() {
        let cloud = parse(&["--alpha".to_string(), "2".to_string()]);
        let options = cloud.spec(10.0).options();
        assert_eq!(options.alpha, 2.0);
        assert_eq!(
            options.reconciled_walltime(),
            interstice_core::Time::from_secs_f64(2.0 * defaults::CLOUD_WALLTIME_SECS)
        );
        assert_eq!(parse(&[]).alpha, defaults::ALPHA);
        for bad in ["0", "-1", "inf", "nan", "x"] {
            assert!(
                Command::try_parse_from(["x", "--alpha", bad]).is_err(),
                "--alpha {bad}"
            );
        }
    }

    #[test]
    fn cloud_flags_written_back_parse_to_the_same_values() {
        for given in [
            vec![],
            vec![
                "--cloud-procs",
                "1,2,4",
                "--cloud-runtime",
                "uniform:0.1w:90",
                "--slack",
                "1.25",
            ],
            vec![
                "--cloud-procs",
                "1:0.7,4:0.3",
                "--cloud-runtime",
                "exp:0.3w",
                "--cloud-walltime",
                "7.5",
                "--alpha",
                "0.75",
            ],
            vec![
                "--cloud-procs",
                "2",
                "--cloud-runtime",
                "18",
                "--seed",
                "18446744073709551615",
            ],
        ] {
            let given: Vec<String> = given.into_iter().map(String::from).collect();
            let cloud = parse(&given);
            assert_eq!(
                parse(&cloud.to_args()),
                cloud,
                "{given:?} -> {:?}",
                cloud.to_args()
            );
        }
    }
}
