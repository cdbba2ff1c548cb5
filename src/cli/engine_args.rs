//! The engine options of the simulation commands (`interstice replay` and
//! `interstice batsim`), declared once and flattened into both, and the value
//! parsers those commands share.
//!
//! Every option is optional on the command line; what is not given comes from
//! Batsim's `--sched-cfg` (for `batsim`) or the defaults of
//! [`EngineOptions::to_config`]: area = the whole machine, admit-all, HPC
//! first, the exact predictor (the thesis predictor's r = β = 0), λ = τ = 1,
//! [`defaults::MAX_RESUBMISSIONS`] resubmissions (`batsim` forces 0 when Batsim
//! runs without `--enable-dynamic-jobs`: a killed Batsim job cannot run again),
//! no limit on the time in the system, no maintenance.

use anyhow::Context;
use interstice_batsim::protocol::EngineOptions;
use interstice_core::depth::BadDepth;
use interstice_core::placement::{Placement, Weights};
use interstice_core::{
    Admission, Beta, CandidateRules, EngineConfig, Policy, Predictor, Regulation, ReservationDepth,
    Scheduling, Time, UnknownName, WFuture,
};
use interstice_swf::beta::ShowBeta;
use interstice_swf::inject::{ProcsChoice, RuntimeSpec};
use interstice_swf::SwfError;
use interstice_swf::{defaults, AreaScheduleFile, MaintenanceFile};
use std::path::PathBuf;

/// `--policy`, `--conv`, `--admission`, `--scheduling`, `--predictor`,
/// `--placement`, `--placement-weights` and the [`TuningArgs`].
#[derive(clap::Args, Clone, Debug, Default, PartialEq)]
pub struct EngineArgs {
    /// Scheduling policy: fcfs, easy, conservative, convergence or cars (the thesis's CArS, with
    /// --scheduling shared-queue).
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
    /// How cloud jobs share the convergence area: hpc-first or shared-queue.
    #[arg(long, value_parser = parse_scheduling, help = with_default(
        "How cloud jobs share the convergence area: hpc-first (they fill the holes of HPC work and are \
         evicted when it needs them) or shared-queue (the thesis's one FCFS queue, no eviction: cloud work \
         may delay HPC work)",
        defaults::scheduling().name(),
    ))]
    pub scheduling: Option<Scheduling>,
    /// How a cloud job's start is predicted at admission: exact, thesis or learned.
    #[arg(long, value_parser = parse_predictor, help = with_default(
        "How a cloud job's start is predicted at admission: exact (its earliest fit in the plan), thesis \
         (the thesis's F^σ over the idle slots, with --latency and --beta) or learned (the plan corrected by \
         what finished jobs ran against their walltimes, with a calibrated violation probability); \
         summary.json reports all three",
        defaults::predictor().name(),
    ))]
    pub predictor: Option<Predictor>,
    /// How a cloud job's processors are chosen among those free at its start: first-fit or topsis.
    #[arg(long, value_parser = parse_placement, help = with_default(
        "How a cloud job's processors are chosen among those free at its start: first-fit (the policy's own \
         order: highest ids of the area, or convergence's stages) or topsis (TOPSIS over the margin before HPC \
         work returns and the idle time left stranded; docs/placement.md); with --datacenter also how F^J' \
         orders the destinations",
        Placement::default().name(),
    ))]
    pub placement: Option<Placement>,
    /// How many queued jobs hold a reservation: a count or `unlimited`.
    #[arg(long, value_name = "K|unlimited", value_parser = parse_depth, help = with_default(
        "How many queued jobs hold a reservation (conservative, and convergence under hpc-first): the first K \
         in queue order are reserved and re-planned, later ones start only where they delay none of those \
         (Maui's RESERVATIONDEPTH, Slurm's bf_max_job_test); `unlimited` is exact conservative backfilling. \
         Also bounds the cloud reservation window (at most 64). docs/performance.md measures what it changes",
        ReservationDepth::Unlimited,
    ))]
    pub reservation_depth: Option<ReservationDepth>,
    /// TOPSIS's criteria weights: NAME=WEIGHT pairs of completion, slack, margin, fragmentation.
    #[arg(long, value_name = "NAME=W,…", value_parser = parse_weights, help = with_default(
        "TOPSIS's criteria weights (--placement topsis): NAME=WEIGHT pairs of completion, slack, margin and \
         fragmentation, normalised to sum 1, unnamed ones 0",
        Weights::default(),
    ))]
    pub placement_weights: Option<Weights>,
    /// λ, τ, the thesis predictor's r and β, maintenance and the resubmission bounds.
    #[command(flatten)]
    pub tuning: TuningArgs,
}

/// `--lambda`, `--tau`, `--latency`, `--beta`, `--w-future`, `--maintenance`,
/// `--max-resubmissions`, `--max-time-in-system`: the engine's scalar knobs,
/// shared by `replay`, `batsim` and `sweep` (which takes lists of the other
/// engine options).
#[derive(clap::Args, Clone, Debug, Default, PartialEq)]
pub struct TuningArgs {
    /// Overbooking risk factor λ of the completion prediction.
    #[arg(long, value_parser = parse_factor, help = with_default("Overbooking risk factor λ of the completion prediction", defaults::lambda()))]
    pub lambda: Option<f64>,
    /// Counter-offer factor τ.
    #[arg(long, value_parser = parse_factor, help = with_default("Counter-offer factor τ", defaults::tau()))]
    pub tau: Option<f64>,
    /// Latency r of the thesis predictor, seconds: a job is predicted to start no sooner than r after
    /// its admission.
    #[arg(long, value_name = "SECONDS", value_parser = parse_instant, help = with_default(
        "Latency r of the thesis predictor (--predictor thesis), seconds: a job is predicted to start no \
         sooner than r after its admission",
        defaults::thesis().latency,
    ))]
    pub latency: Option<f64>,
    /// β of the thesis predictor: seconds after a future idle slot opens, or `disqualify`.
    #[arg(long, value_name = "SECONDS|disqualify", value_parser = parse_beta, help = with_default(
        "β of the thesis predictor (--predictor thesis): a job that only fits a future idle slot is \
         predicted to start β seconds after it opens; `disqualify` predicts no start in a future slot",
        ShowBeta(defaults::thesis().beta),
    ))]
    pub beta: Option<Beta>,
    /// Which idle time the thesis predictor reads as `W_future`.
    #[arg(long, value_name = "holes|published", value_parser = parse_w_future, help = with_default(
        "Which idle time the thesis predictor (--predictor thesis) reads as W_future: holes (§4.5: the idle \
         time between planned jobs and after them) or published (Algorithm 3, lines 17-18: the holes \
         between planned jobs left out)",
        defaults::thesis().w_future,
    ))]
    pub w_future: Option<WFuture>,
    /// Maintenance windows, processors no job may use over a time: a file of `START DURATION PROCS`
    /// lines (seconds on the workload's clock, seconds, ids and ranges like `0-3,8`; `#` comments).
    #[arg(long, value_name = "FILE")]
    pub maintenance: Option<PathBuf>,
    /// Resizes of the convergence area planned ahead: a file of `TIME PROCS` lines (seconds on the
    /// workload's clock, the area from then on as processors 0..PROCS; `#` comments). Shrinking
    /// evicts the cloud jobs on the processors leaving the area (docs/admin.md, "Resizing the area")
    #[arg(long, value_name = "FILE")]
    pub area_schedule: Option<PathBuf>,
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
    /// Refuse a cloud job whose predicted violation probability exceeds P, from 0 to 1 (implies
    /// --admission reject-predicted; default: refuse predicted violations). Only --predictor learned
    /// gives probabilities between 0 and 1.
    #[arg(long, value_name = "P", value_parser = parse_probability)]
    pub reject_above: Option<f64>,
    /// Candidate rule: refuse a cloud job whose walltime is longer than this (a duration: 3600, 1h;
    /// default: no limit). The refusal counts as a rejection (summary.json's
    /// cloud.rejected_not_candidate).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub candidate_max_walltime: Option<Time>,
    /// Candidate rule: refuse a cloud job that asks for more processors than this (default: no limit).
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub candidate_max_width: Option<u32>,
    /// Candidate rule: refuse a cloud job whose slack factor (SLO ÷ walltime) is below this (default:
    /// no limit; a job without an SLO passes).
    #[arg(long, value_name = "F", value_parser = parse_factor)]
    pub candidate_min_slack: Option<f64>,
    /// Regulate the cloud submission rate: refuse a cloud job (with a later-start counter-offer)
    /// when the cloud work admitted over the last WINDOW would exceed THRESHOLD times the
    /// convergence area's idle capacity over the next WINDOW, e.g. 1h:1 (default: no regulation;
    /// summary.json's cloud.rejected_regulated).
    #[arg(long, value_name = "WINDOW:THRESHOLD", value_parser = parse_regulate)]
    pub regulate: Option<Regulation>,
}

/// A help line ending in clap's own `[default: …]` for an option that is an
/// `Option` (so that `batsim` can tell "not given" from the default, which
/// then comes from `--sched-cfg` first) and so cannot declare a clap default.
fn with_default(help: &str, default: impl std::fmt::Display) -> String {
    format!("{help} [default: {default}]")
}

impl EngineArgs {
    /// The options as given (`None` where not given); reads the maintenance file.
    pub fn options(&self) -> anyhow::Result<EngineOptions> {
        Ok(EngineOptions {
            policy: self.policy,
            conv: self.conv,
            admission: self.admission,
            scheduling: self.scheduling,
            predictor: self.predictor,
            placement: self.placement,
            placement_weights: self.placement_weights,
            reservation_depth: self.reservation_depth,
            ..self.tuning.options()?
        })
    }

    /// The engine config for a machine of `procs` processors, defaults filled in.
    pub fn to_config(&self, procs: u32) -> anyhow::Result<EngineConfig> {
        Ok(self.options()?.to_config(procs)?)
    }
}

impl TuningArgs {
    /// These options as given (`None` where not given, and for every
    /// option that is not one of them); reads the maintenance file.
    pub fn options(&self) -> anyhow::Result<EngineOptions> {
        let maintenance = match &self.maintenance {
            Some(path) => Some(MaintenanceFile::read(path).context("--maintenance")?),
            None => None,
        };
        let area_schedule = match &self.area_schedule {
            Some(path) => Some(AreaScheduleFile::read(path).context("--area-schedule")?),
            None => None,
        };
        Ok(EngineOptions {
            area_schedule,
            lambda: self.lambda,
            tau: self.tau,
            latency: self.latency,
            beta: self.beta,
            w_future: self.w_future,
            maintenance,
            max_resubmissions: self.max_resubmissions,
            max_time_in_system: self.max_time_in_system,
            reject_above: self.reject_above,
            candidates: self.candidates(),
            regulation: self.regulate,
            ..EngineOptions::default()
        })
    }
}

impl TuningArgs {
    /// The candidate rules the three `--candidate-*` flags give (`None`: none given).
    fn candidates(&self) -> Option<CandidateRules> {
        let rules = CandidateRules {
            max_walltime: self.candidate_max_walltime,
            max_width: self.candidate_max_width,
            min_slack: self.candidate_min_slack,
        };
        (!rules.is_unlimited()).then_some(rules)
    }
}

/// `--regulate WINDOW:THRESHOLD`: a window ([`duration_secs`]) and a positive
/// threshold (admitted cloud work ÷ the area's idle capacity).
pub fn parse_regulate(text: &str) -> Result<Regulation, String> {
    let usage =
        "write WINDOW:THRESHOLD, e.g. 1h:1 (a window of one hour, at most as much cloud work admitted \
                 per window as the area has idle)";
    let Some((window, threshold)) = text.split_once(':') else {
        return Err(format!("{text:?} has no ':': {usage}"));
    };
    let window = parse_duration(window).map_err(|err| format!("the window: {err}"))?;
    let threshold = parse_factor(threshold).map_err(|err| format!("the threshold: {err}"))?;
    let regulation = Regulation {
        window,
        threshold,
        // A trace's jobs are not submitted as users.
        per_user_share: None,
    };
    match regulation.problem() {
        Some(problem) => Err(problem),
        None => Ok(regulation),
    }
}

/// A positive count.
pub fn parse_count(text: &str) -> Result<u32, BadValue> {
    match text.trim().parse::<u32>() {
        Ok(value) if value > 0 => Ok(value),
        _ => Err(BadValue::Count(text.to_string())),
    }
}

/// A probability, from 0 to 1.
pub fn parse_probability(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("expected a probability from 0 to 1, found {text:?}")),
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

/// A placement name.
pub fn parse_placement(text: &str) -> Result<Placement, UnknownName> {
    text.parse()
}

/// TOPSIS's weights (`margin=0.5,completion=0.2`).
pub fn parse_weights(text: &str) -> Result<Weights, String> {
    text.parse()
}

/// A reservation depth (`500`, `unlimited`).
pub fn parse_depth(text: &str) -> Result<ReservationDepth, BadDepth> {
    text.parse()
}

/// Which idle time `W_future` holds (`holes`, `published`).
pub fn parse_w_future(text: &str) -> Result<WFuture, UnknownName> {
    text.parse()
}

/// A scheduling mode.
pub fn parse_scheduling(text: &str) -> Result<Scheduling, UnknownName> {
    text.parse()
}

/// A predictor name.
pub fn parse_predictor(text: &str) -> Result<Predictor, UnknownName> {
    text.parse()
}

/// β of the thesis predictor: a duration from 0 ([`duration_secs`]) or `disqualify`.
pub fn parse_beta(text: &str) -> Result<Beta, String> {
    let beta = match duration_secs(text) {
        Some(secs) => interstice_swf::beta::beta_from_secs(secs).ok(),
        None => interstice_swf::beta::parse_beta(text).ok(),
    };
    beta.ok_or_else(|| {
        format!(
            "{text:?} is not a β: a time from 0 to {max:e} s ({DURATION_FORMS}), or `disqualify` to never \
             predict a start in a future slot",
            max = Time::MAX_INSTANT_SECS
        )
    })
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
    /// Not a positive duration.
    #[error("{0:?} is not a positive duration: {forms}, at most {max:e} s", forms = DURATION_FORMS, max = Time::MAX_INSTANT_SECS)]
    Seconds(String),
    /// Not an instant.
    #[error("{0:?} is not a time from 0 to {max:e} s: {forms}", forms = DURATION_FORMS, max = Time::MAX_INSTANT_SECS)]
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

/// The forms [`duration_secs`] reads, as error messages and help texts name them.
pub const DURATION_FORMS: &str =
    "write seconds (90, 1.5) or numbers with units d, h, m, s in that order (90s, 3m, 1h30m, 2d, 1.5h)";

/// The one reader of every command-line duration: seconds (`90`, `1.5`) or
/// numbers with units `d`, `h`, `m`, `s`, each at most once and in that
/// order (`90s`, `3m`, `1h30m`, `2d`, `1.5h`). `None` for anything else; the
/// caller checks the range ([`parse_seconds`], [`parse_instant`]).
pub fn duration_secs(text: &str) -> Option<f64> {
    let text = text.trim();
    if let Ok(secs) = text.parse::<f64>() {
        return Some(secs);
    }
    const UNITS: [(char, f64); 4] = [('d', 86_400.0), ('h', 3_600.0), ('m', 60.0), ('s', 1.0)];
    let mut rest = text;
    let mut next_unit = 0;
    let mut total = 0.0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number = rest[..digits].parse::<f64>().ok()?;
        let unit = rest[digits..].chars().next()?;
        let rank = next_unit + UNITS[next_unit..].iter().position(|&(name, _)| name == unit)?;
        total += number * UNITS[rank].1;
        next_unit = rank + 1;
        rest = &rest[digits + unit.len_utf8()..];
    }
    (!text.is_empty()).then_some(total)
}

/// A positive duration ([`duration_secs`]) in seconds, at most [`Time::MAX_INSTANT_SECS`].
pub fn parse_seconds(text: &str) -> Result<f64, BadValue> {
    match duration_secs(text) {
        Some(value) if value.is_finite() && value > 0.0 && value <= Time::MAX_INSTANT_SECS => Ok(value),
        _ => Err(BadValue::Seconds(text.to_string())),
    }
}

/// [`parse_seconds`] as a [`Time`].
pub fn parse_duration(text: &str) -> Result<Time, BadValue> {
    parse_seconds(text).map(Time::from_secs_f64)
}

/// An instant or a duration that may be 0 ([`duration_secs`]), from 0 to [`Time::MAX_INSTANT_SECS`] seconds.
pub fn parse_instant(text: &str) -> Result<f64, BadValue> {
    match duration_secs(text) {
        Some(value) if Time::instant_from_secs_f64(value).is_some() => Ok(value),
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

/// A number of jobs to generate: 1 to `SyntheticOptions::MAX_JOBS`
/// (`4000000000` used to abort on a failed allocation).
pub fn parse_job_count(text: &str) -> Result<usize, String> {
    let max = interstice_batsim::sim::synthetic::SyntheticOptions::MAX_JOBS;
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("{text:?} is not a number of jobs from 1 to {max}")),
    }
}

/// A generated workload's machine: 1 to `EngineConfig::MAX_PROCS` processors.
pub fn parse_generated_procs(text: &str) -> Result<u32, String> {
    let max = interstice_core::EngineConfig::MAX_PROCS;
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("{text:?} is not a number of processors from 1 to {max}")),
    }
}

/// A generated workload's length: 1 to `SyntheticOptions::MAX_DAYS` days.
pub fn parse_generated_days(text: &str) -> Result<u32, String> {
    let max = interstice_batsim::sim::synthetic::SyntheticOptions::MAX_DAYS;
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("{text:?} is not a number of days from 1 to {max}")),
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
            args.options().unwrap(),
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
        let core = EngineConfig::new(8, Policy::Easy);
        assert_eq!(
            (
                config.scheduling,
                config.predictor,
                config.thesis,
                config.maintenance
            ),
            (core.scheduling, core.predictor, core.thesis, core.maintenance)
        );
    }

    #[test]
    fn every_flag_reaches_the_config() {
        let dir = tempfile::tempdir().unwrap();
        let maintenance = dir.path().join("maint.txt");
        std::fs::write(&maintenance, "100 50 0-1\n# later\n500.5 10 3,5-6\n").unwrap();
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
            "--scheduling",
            "shared-queue",
            "--predictor",
            "thesis",
            "--latency",
            "0",
            "--beta",
            "disqualify",
            "--w-future",
            "published",
            "--maintenance",
            maintenance.to_str().unwrap(),
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
        assert_eq!(config.scheduling, Scheduling::SharedQueue);
        assert_eq!(config.predictor, Predictor::Thesis);
        assert_eq!(
            config.thesis,
            interstice_core::ThesisPrediction {
                latency: Time::ZERO,
                beta: Beta::Disqualify,
                w_future: interstice_core::WFuture::Published,
            }
        );
        assert_eq!(config.maintenance.len(), 2);
        assert_eq!(config.maintenance[1].start, Time::from_secs_f64(500.5));
        assert_eq!(config.maintenance[1].procs.to_string(), "3 5-6");
        let with =
            |flags: &[&str]| Command::try_parse_from(std::iter::once("x").chain(flags.iter().copied()));
        let seconds = with(&["--latency", "2.5", "--beta", "30"]).unwrap().engine.tuning;
        assert_eq!(seconds.latency, Some(2.5));
        assert_eq!(seconds.beta, Some(Beta::Wait(Time::from_secs(30))));
        for bad in [
            &["--lambda", "0"][..],
            &["--policy", "sjf"],
            &["--scheduling", "together"],
            &["--predictor", "oracle"],
            &["--latency", "-1"],
            &["--beta", "-1"],
            &["--beta", "never"],
        ] {
            assert!(with(bad).is_err(), "{bad:?}");
        }
        assert!(args.to_config(3).is_err(), "an area larger than the machine");
        let err = format!("{:#}", args.to_config(6).unwrap_err());
        assert_eq!(
            err,
            format!(
                "maintenance: {}:3: processor 6 does not exist: the platform has processors 0-5",
                maintenance.display()
            )
        );
    }

    #[test]
    fn candidate_and_regulation_flags_reach_the_config() {
        let with = |flags: &[&str]| {
            Command::try_parse_from(["x", "--policy", "easy"].into_iter().chain(flags.iter().copied()))
        };
        let args = with(&[
            "--candidate-max-walltime",
            "1h",
            "--candidate-max-width",
            "4",
            "--candidate-min-slack",
            "1.5",
            "--regulate",
            "30m:0.8",
        ])
        .unwrap()
        .engine;
        let config = args.to_config(8).unwrap();
        assert_eq!(
            config.candidates,
            CandidateRules {
                max_walltime: Some(Time::from_secs(3600)),
                max_width: Some(4),
                min_slack: Some(1.5),
            }
        );
        assert_eq!(
            config.regulation,
            Some(Regulation {
                window: Time::from_secs(1800),
                threshold: 0.8,
                per_user_share: None
            })
        );
        // None given: no limits and no regulation, as before the flags.
        let plain = with(&[]).unwrap().engine.to_config(8).unwrap();
        assert!(plain.candidates.is_unlimited() && plain.regulation.is_none());
        // One limit alone leaves the others off.
        let width = with(&["--candidate-max-width", "2"])
            .unwrap()
            .engine
            .to_config(8)
            .unwrap();
        assert_eq!(
            (width.candidates.max_width, width.candidates.max_walltime),
            (Some(2), None)
        );
        for bad in [
            &["--candidate-max-walltime", "0"][..],
            &["--candidate-max-width", "0"],
            &["--candidate-min-slack", "-2"],
            &["--regulate", "1h"],
            &["--regulate", "0:1"],
            &["--regulate", "1h:0"],
            &["--regulate", "soon:1"],
        ] {
            assert!(with(bad).is_err(), "{bad:?}");
        }
        let err = with(&["--regulate", "1h"]).unwrap_err().to_string();
        assert!(
            err.contains("has no ':': write WINDOW:THRESHOLD, e.g. 1h:1"),
            "{err}"
        );
        let err = with(&["--regulate", "1h:0"]).unwrap_err().to_string();
        assert!(
            err.contains("the threshold: \"0\" is not a positive number"),
            "{err}"
        );
    }

    #[test]
    fn durations_are_seconds_or_units_and_keep_plain_seconds() {
        for (text, secs) in [
            ("90", 90.0),
            ("1.5", 1.5),
            (" 60 ", 60.0),
            ("90s", 90.0),
            ("3m", 180.0),
            ("1h30m", 5_400.0),
            ("2d", 172_800.0),
            ("1.5h", 5_400.0),
            ("1d2h3m4s", 93_784.0),
            ("0.5s", 0.5),
        ] {
            assert_eq!(duration_secs(text), Some(secs), "{text}");
            assert_eq!(parse_seconds(text).unwrap(), secs, "{text}");
        }
        for bad in [
            "", "s", "3x", "1h30", "30m1h", "1m1m", "-5s", "1.2.3s", "h1", "3 m",
        ] {
            assert_eq!(duration_secs(bad), None, "{bad}");
        }
        for bad in ["0", "0s", "-1", "inf", "nan", "3x", "2e12"] {
            let err = parse_seconds(bad).unwrap_err().to_string();
            assert!(err.contains("90s, 3m, 1h30m, 2d"), "{bad}: {err}");
        }
        assert_eq!(parse_instant("0").unwrap(), 0.0);
        assert_eq!(parse_instant("10m").unwrap(), 600.0);
        assert!(parse_instant("-1m").is_err());
        assert_eq!(parse_duration("2m").unwrap(), Time::from_secs(120));
        assert_eq!(parse_beta("1m").unwrap(), Beta::Wait(Time::from_secs(60)));
        assert_eq!(parse_beta("0").unwrap(), Beta::Wait(Time::ZERO));
        assert_eq!(parse_beta("disqualify").unwrap(), Beta::Disqualify);
        assert!(parse_beta("-1s").unwrap_err().contains("disqualify"));
        let with =
            |flags: &[&str]| Command::try_parse_from(std::iter::once("x").chain(flags.iter().copied()));
        let tuning = with(&["--latency", "2m", "--max-time-in-system", "1h"])
            .unwrap()
            .engine
            .tuning;
        assert_eq!(
            (tuning.latency, tuning.max_time_in_system),
            (Some(120.0), Some(3_600.0))
        );
        let err = with(&["--max-time-in-system", "1 hour"]).unwrap_err().to_string();
        assert!(
            err.contains("--max-time-in-system") && err.contains("1h30m"),
            "the flag and the forms: {err}"
        );
    }

    #[test]
    fn a_bad_maintenance_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("maint.txt");
        std::fs::write(&path, "0 60 0-x\n").unwrap();
        let args =
            Command::try_parse_from(["x", "--policy", "easy", "--maintenance", path.to_str().unwrap()])
                .unwrap()
                .engine;
        assert_eq!(
            format!("{:#}", args.to_config(8).unwrap_err()),
            format!(
                "--maintenance: {}:1: procs \"0-x\": \"0-x\" is neither an id (8) nor a range (0-3): write \
                 processor ids and inclusive ranges separated by commas, e.g. 0-3,8,10-11",
                path.display()
            )
        );
        let missing = Command::try_parse_from(["x", "--maintenance", "/nonexistent/m.txt"])
            .unwrap()
            .engine;
        assert!(format!("{:#}", missing.options().unwrap_err())
            .starts_with("--maintenance: cannot open /nonexistent/m.txt: "));
    }

    #[test]
    fn help_shows_the_thesis_defaults() {
        use clap::CommandFactory;
        let help = Command::command().render_long_help().to_string();
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for expected in [
            "[default: hpc-first]",
            "[default: exact]",
            "--latency <SECONDS>",
            "--beta <SECONDS|disqualify>",
            "--maintenance <FILE>",
        ] {
            assert!(help.contains(expected), "{expected} in\n{help}");
        }
    }
}
