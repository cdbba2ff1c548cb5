//! The engine options of the simulation commands (`interstice replay` and
//! `interstice batsim`), declared once and flattened into both, and the value
//! parsers those commands share.
//!
//! Every option is optional on the command line; what is not given comes from
//! Batsim's `--sched-cfg` (for `batsim`) or the defaults of
//! [`EngineOptions::to_config`]: area = the whole machine, admit-all, λ = τ = 1,
//! [`defaults::MAX_RESUBMISSIONS`] resubmissions (`batsim` forces 0 when Batsim
//! runs without `--enable-dynamic-jobs`: a killed Batsim job cannot run again),
//! no limit on the time in the system.

use interstice_batsim::protocol::EngineOptions;
use interstice_core::{Admission, EngineConfig, Policy, Time, UnknownName};
use interstice_swf::defaults;
use interstice_swf::inject::{ProcsChoice, RuntimeSpec};
use interstice_swf::SwfError;

/// `--policy`, `--conv`, `--admission` and the [`TuningArgs`].
#[derive(clap::Args, Clone, Debug, Default, PartialEq)]
pub struct EngineArgs {
    /// Scheduling policy: fcfs, easy, conservative or convergence.
    #[arg(long, value_parser = parse_policy)]
    pub policy: Option<Policy>,
    /// Processors of the convergence area, 0..C (default: the whole machine).
    #[arg(long, value_name = "C")]
    pub conv: Option<u32>,
    /// What to do with a cloud job predicted to miss its SLO: admit-all or reject-predicted.
    #[arg(long, value_parser = parse_admission, help = with_default(
        "What to do with a cloud job predicted to miss its SLO: admit-all or reject-predicted",
        defaults::admission().name(),
    ))]
    pub admission: Option<Admission>,
    /// λ, τ and the resubmission bounds.
    #[command(flatten)]
    pub tuning: TuningArgs,
}

/// `--lambda`, `--tau`, `--max-resubmissions`, `--max-time-in-system`: the
/// engine's scalar knobs, shared by `replay`, `batsim` and `sweep` (which
/// takes lists of the other engine options).
#[derive(clap::Args, Clone, Debug, Default, PartialEq)]
pub struct TuningArgs {
    /// Overbooking risk factor λ of the completion prediction.
    #[arg(long, value_parser = parse_factor, help = with_default("Overbooking risk factor λ of the completion prediction", defaults::lambda()))]
    pub lambda: Option<f64>,
    /// Counter-offer factor τ.
    #[arg(long, value_parser = parse_factor, help = with_default("Counter-offer factor τ", defaults::tau()))]
    pub tau: Option<f64>,
    /// Resubmissions allowed to an evicted cloud job (`batsim` needs Batsim's
    /// --enable-dynamic-jobs for any).
    #[arg(long, value_name = "N", help = with_default(
        "Resubmissions allowed to an evicted cloud job (`batsim` needs Batsim's --enable-dynamic-jobs for any)",
        defaults::MAX_RESUBMISSIONS,
    ))]
    pub max_resubmissions: Option<u32>,
    /// An evicted cloud job older than this many seconds is not resubmitted (default: no limit).
    #[arg(long, value_name = "S", value_parser = parse_seconds)]
    pub max_time_in_system: Option<f64>,
}

/// A help line ending in clap's own `[default: …]` for an option that is an
/// `Option` (so that `batsim` can tell "not given" from the default, which
/// then comes from `--sched-cfg` first) and so cannot declare a clap default.
fn with_default(help: &str, default: impl std::fmt::Display) -> String {
    format!("{help} [default: {default}]")
}

impl EngineArgs {
    /// The options as given (`None` where not given).
    pub fn options(&self) -> EngineOptions {
        EngineOptions {
            policy: self.policy,
            conv: self.conv,
            admission: self.admission,
            lambda: self.tuning.lambda,
            tau: self.tuning.tau,
            max_resubmissions: self.tuning.max_resubmissions,
            max_time_in_system: self.tuning.max_time_in_system,
        }
    }

    /// The engine config for a machine of `procs` processors, defaults filled in.
    pub fn to_config(&self, procs: u32) -> anyhow::Result<EngineConfig> {
        Ok(self.options().to_config(procs)?)
    }
}

/// A policy name.
pub fn parse_policy(text: &str) -> Result<Policy, UnknownName> {
    text.parse()
}

/// An admission mode.
pub fn parse_admission(text: &str) -> Result<Admission, UnknownName> {
    text.parse()
}

/// A cloud job's run time (`walltime`, `120`, `0.1w`, `uniform:LO:HI`, `exp:MEAN`).
pub fn parse_runtime(text: &str) -> Result<RuntimeSpec, SwfError> {
    text.parse()
}

/// Processors of each cloud job (`4`, `1,2,4`, `1:0.5,2:0.5`).
pub fn parse_procs_choice(text: &str) -> Result<ProcsChoice, SwfError> {
    text.parse()
}

/// A command-line value out of its range.
#[derive(Debug, thiserror::Error)]
pub enum BadValue {
    /// Not a positive number of seconds.
    #[error("{0:?} is not a positive number of seconds (at most {max:e})", max = Time::MAX_INSTANT_SECS)]
    Seconds(String),
    /// Not an instant.
    #[error("{0:?} is not a time in seconds from 0 to {max:e}", max = Time::MAX_INSTANT_SECS)]
    Instant(String),
    /// Not a positive number.
    #[error("{0:?} is not a positive number")]
    Factor(String),
    /// Not a positive processor count.
    #[error("{0:?} is not a positive processor count")]
    Count(String),
    /// Not a seed.
    #[error("{0:?} is not a seed (a non-negative integer)")]
    Seed(String),
}

/// Positive, finite seconds, at most [`Time::MAX_INSTANT_SECS`].
pub fn parse_seconds(text: &str) -> Result<f64, BadValue> {
    match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 && value <= Time::MAX_INSTANT_SECS => Ok(value),
        _ => Err(BadValue::Seconds(text.to_string())),
    }
}

/// [`parse_seconds`] as a [`Time`].
pub fn parse_duration(text: &str) -> Result<Time, BadValue> {
    parse_seconds(text).map(Time::from_secs_f64)
}

/// An instant in seconds, from 0 to [`Time::MAX_INSTANT_SECS`].
pub fn parse_instant(text: &str) -> Result<f64, BadValue> {
    match text.trim().parse::<f64>() {
        Ok(value) if Time::instant_from_secs_f64(value).is_some() => Ok(value),
        _ => Err(BadValue::Instant(text.to_string())),
    }
}

/// A walltime reconciliation factor α ([`interstice_core::valid_alpha`]).
pub fn parse_alpha(text: &str) -> Result<f64, BadValue> {
    match text.trim().parse::<f64>() {
        Ok(value) if interstice_core::valid_alpha(value) => Ok(value),
        _ => Err(BadValue::Factor(text.to_string())),
    }
}

/// A positive, finite number.
pub fn parse_factor(text: &str) -> Result<f64, BadValue> {
    match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(value),
        _ => Err(BadValue::Factor(text.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Command {
        #[command(flatten)]
        engine: EngineArgs,
    }

    #[test]
    fn nothing_given_is_none_and_the_defaults_fill_in() {
        let args = Command::try_parse_from(["x", "--policy", "easy"]).unwrap().engine;
        assert_eq!(
            args.options(),
            EngineOptions {
                policy: Some(Policy::Easy),
                ..EngineOptions::default()
            }
        );
        let config = args.to_config(8).unwrap();
        assert_eq!(config.conv_procs, 8);
        assert_eq!(config.admission, Admission::AdmitAll);
        assert_eq!((config.lambda, config.tau), (1.0, 1.0));
        assert_eq!(config.lifecycle.max_resubmissions, defaults::MAX_RESUBMISSIONS);
        assert_eq!(config.lifecycle.max_time_in_system, None);
    }

    #[test]
    fn every_flag_reaches_the_config() {
        let args = Command::try_parse_from([
            "x",
            "--policy",
            "convergence",
            "--conv",
            "4",
            "--admission",
            "reject-predicted",
            "--lambda",
            "1.5",
            "--tau",
            "2",
            "--max-resubmissions",
            "0",
            "--max-time-in-system",
            "60",
        ])
        .unwrap()
        .engine;
        let config = args.to_config(8).unwrap();
        assert_eq!(config.policy, Policy::Convergence);
        assert_eq!(config.conv_procs, 4);
        assert_eq!(config.admission, Admission::RejectPredicted);
        assert_eq!((config.lambda, config.tau), (1.5, 2.0));
        assert_eq!(config.lifecycle.max_resubmissions, 0);
        assert_eq!(
            config.lifecycle.max_time_in_system,
            Some(interstice_core::Time::from_secs(60))
        );
        assert!(Command::try_parse_from(["x", "--lambda", "0"]).is_err());
        assert!(Command::try_parse_from(["x", "--policy", "sjf"]).is_err());
        assert!(args.to_config(3).is_err(), "an area larger than the machine");
    }
}
