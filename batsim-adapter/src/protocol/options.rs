//! The adapter's settings: engine options (from the command line and/or
//! Batsim's `--sched-cfg` JSON) and cloud-job injection.

use super::error_text::error_chain;
use interstice_core::placement::{Placement, Weights, WEIGHTS_EXAMPLE};
use interstice_core::{
    Admission, Beta, CandidateRules, EngineConfig, Lifecycle, Policy, Predictor, Regulation,
    ReservationDepth, Scheduling, Time, WFuture,
};
use interstice_swf::beta::{beta_from_secs, parse_beta};
use interstice_swf::{
    inject_cloud_jobs, AreaScheduleFile, CloudJobs, InjectOptions, MaintenanceFile, SwfError,
};
use serde_json::Value;

/// Engine options; `None` = not given here (another source or the default applies).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineOptions {
    /// Scheduling policy (required from one source).
    pub policy: Option<Policy>,
    /// Processors in the convergence area (default: all).
    pub conv: Option<u32>,
    /// Admission mode (default: admit-all).
    pub admission: Option<Admission>,
    /// How cloud jobs share the area (default: hpc-first).
    pub scheduling: Option<Scheduling>,
    /// How a cloud job's start is predicted (default: exact).
    pub predictor: Option<Predictor>,
    /// Overbooking risk factor λ (default 1).
    pub lambda: Option<f64>,
    /// Counter-offer factor τ (default 1).
    pub tau: Option<f64>,
    /// Latency `r` of the thesis's predictor, seconds (default 0).
    pub latency: Option<f64>,
    /// `β` of the thesis's predictor (default 0 s).
    pub beta: Option<Beta>,
    /// Which idle time the thesis's predictor reads as `W_future` (default:
    /// §4.5's, holes included).
    pub w_future: Option<WFuture>,
    /// Maintenance windows (default: none).
    pub maintenance: Option<MaintenanceFile>,
    /// Resizes of the convergence area planned ahead (default: none).
    pub area_schedule: Option<AreaScheduleFile>,
    /// Maximum resubmissions of an evicted cloud job (default
    /// [`DEFAULT_MAX_RESUBMISSIONS`]; the session allows none when Batsim runs
    /// without dynamic jobs).
    pub max_resubmissions: Option<u32>,
    /// Maximum time in the system of a cloud job, seconds (default: unbounded).
    pub max_time_in_system: Option<f64>,
    /// How a cloud job's processors are chosen (default: first-fit).
    pub placement: Option<Placement>,
    /// TOPSIS's weights (default: the AHP weights of `docs/placement.md`).
    pub placement_weights: Option<Weights>,
    /// Refuse a cloud job whose violation probability exceeds this (default:
    /// refuse predicted violations); implies reject-predicted.
    pub reject_above: Option<f64>,
    /// How many queued jobs hold a reservation (default: unlimited, the
    /// exact conservative rule; `interstice_core::depth`).
    pub reservation_depth: Option<ReservationDepth>,
    /// The candidate rules (default: no limits; `interstice_core::candidate`).
    pub candidates: Option<CandidateRules>,
    /// The submission-rate regulator (default: none; `interstice_core::regulate`).
    pub regulation: Option<Regulation>,
}

/// Resubmissions allowed to an evicted cloud job when no option says
/// otherwise: the experiment default, [`interstice_swf::defaults::MAX_RESUBMISSIONS`].
pub const DEFAULT_MAX_RESUBMISSIONS: u32 = interstice_swf::defaults::MAX_RESUBMISSIONS;

const SCHED_CONFIG_KEYS: &str =
    "policy, conv, admission, scheduling, predictor, lambda, tau, latency, beta, w_future, \
max_resubmissions, max_time_in_system, maintenance, area_schedule, placement, placement_weights, reject_above, \
reservation_depth";

/// Why engine options cannot be read from `sched-config` or made into an engine config.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OptionsError {
    /// `sched-config` is not JSON.
    #[error("sched-config is not valid JSON ({0}): expected an object such as {{\"policy\": \"easy\"}}")]
    NotJson(serde_json::Error),
    /// `sched-config` is JSON but not an object.
    #[error("sched-config must be a JSON object with keys {keys}", keys = SCHED_CONFIG_KEYS)]
    NotAnObject,
    /// A key that is not an engine option.
    #[error("sched-config has an unknown key {key:?}: expected {keys}", keys = SCHED_CONFIG_KEYS)]
    UnknownKey {
        /// The key as written.
        key: String,
    },
    /// A key's value is of the wrong JSON type or out of range.
    #[error("sched-config key {key:?}: expected {expected}, found {found}")]
    WrongType {
        /// The key as written.
        key: String,
        /// What it should hold.
        expected: &'static str,
        /// The value found.
        found: Value,
    },
    /// A policy or admission name that does not exist.
    #[error("sched-config key {key:?}: {problem}")]
    UnknownName {
        /// The key as written.
        key: String,
        /// The engine's explanation, with the names it knows.
        problem: interstice_core::UnknownName,
    },
    /// No source gave a policy.
    #[error("no scheduling policy: pass --policy or put {{\"policy\": …}} in Batsim's --sched-cfg")]
    NoPolicy,
    /// The convergence area is empty or wider than the platform.
    #[error("the convergence area has {conv} processors but the platform has {procs}: expected 1..={procs}")]
    ConvOutOfRange {
        /// The area's processors.
        conv: u32,
        /// The platform's processors.
        procs: u32,
    },
    /// The maximum time in the system is negative, infinite or NaN.
    #[error("max time in system {0} is not a non-negative number of seconds")]
    MaxTimeInSystem(f64),
    /// The thesis predictor's latency is not an amount of seconds.
    #[error(
        "latency {0} is not a number of seconds from 0 to {max:e}: give the delay r before a predicted start (0 by default)",
        max = Time::MAX_INSTANT_SECS
    )]
    Latency(f64),
    /// The admission threshold is not a probability, or comes with admit-all.
    #[error("reject above {0}: give a violation probability from 0 to 1, with the reject-predicted admission (the default when a threshold is given)")]
    RejectAbove(f64),
    /// TOPSIS's weights are given but the placement is not TOPSIS.
    #[error("placement weights are given but the placement is first-fit: add --placement topsis (sched-config \"placement\": \"topsis\"), or drop the weights")]
    WeightsWithoutTopsis,
    /// TOPSIS's weights are not `NAME=WEIGHT` pairs of known criteria.
    #[error("placement weights: {0} (write e.g. {example})", example = WEIGHTS_EXAMPLE)]
    PlacementWeights(String),
    /// Options that do not go together (a reservation depth the policy
    /// does not use, `cars` outside the one queue); the message names the fix.
    #[error("{0}")]
    Conflict(String),
    /// The maintenance file cannot be read, or a window does not fit the
    /// platform (the message carries the whole cause).
    #[error("maintenance: {}", error_chain(.0))]
    Maintenance(SwfError),
    /// The area schedule cannot be read, or a change does not fit the
    /// platform (the message carries the whole cause).
    #[error("area_schedule: {}", error_chain(.0))]
    AreaSchedule(SwfError),
}

impl EngineOptions {
    /// Parse Batsim's `sched-config` string: a JSON object with any of the keys
    /// `policy`, `conv`, `admission`, `scheduling`, `predictor`, `lambda`,
    /// `tau`, `latency` (seconds), `beta` (seconds or `"disqualify"`),
    /// `w_future` (`"holes"` or `"published"`),
    /// `max_resubmissions`, `max_time_in_system` (seconds), `placement`,
    /// `placement_weights`, `reject_above` (a probability),
    /// `reservation_depth` (a positive count or `"unlimited"`), `maintenance`
    /// (the path of a maintenance file, [`MaintenanceFile`], read now, from
    /// the working directory) and `area_schedule` (the path of an area
    /// schedule, [`AreaScheduleFile`], likewise); `-` and `_` are interchangeable. An empty
    /// string gives no options.
    pub fn from_sched_config(text: &str) -> Result<EngineOptions, OptionsError> {
        let mut options = EngineOptions::default();
        if text.trim().is_empty() {
            return Ok(options);
        }
        let value: Value = serde_json::from_str(text).map_err(OptionsError::NotJson)?;
        let obj = value.as_object().ok_or(OptionsError::NotAnObject)?;
        for (key, value) in obj {
            let wrong_type = |expected: &'static str| OptionsError::WrongType {
                key: key.clone(),
                expected,
                found: value.clone(),
            };
            let count = |expected| {
                value
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| wrong_type(expected))
            };
            let number = |expected| value.as_f64().ok_or_else(|| wrong_type(expected));
            let name = |expected| value.as_str().ok_or_else(|| wrong_type(expected));
            let unknown_name = |problem| OptionsError::UnknownName {
                key: key.clone(),
                problem,
            };
            match key.replace('-', "_").as_str() {
                "policy" => options.policy = Some(name("a policy name")?.parse().map_err(unknown_name)?),
                "admission" => {
                    options.admission = Some(name("an admission mode")?.parse().map_err(unknown_name)?)
                }
                "scheduling" => {
                    options.scheduling = Some(name("a scheduling mode")?.parse().map_err(unknown_name)?)
                }
                "predictor" => {
                    options.predictor = Some(name("a predictor name")?.parse().map_err(unknown_name)?)
                }
                "placement" => {
                    options.placement = Some(name("a placement name")?.parse().map_err(unknown_name)?)
                }
                "w_future" => {
                    options.w_future = Some(
                        name("\"holes\" or \"published\"")?
                            .parse()
                            .map_err(unknown_name)?,
                    )
                }
                "placement_weights" => {
                    let text = name("weights such as \"margin=0.5,completion=0.2\"")?;
                    options.placement_weights = Some(text.parse().map_err(OptionsError::PlacementWeights)?)
                }
                "reservation_depth" => {
                    const DEPTH: &str = "a number of jobs from 1, or \"unlimited\"";
                    let depth = match value {
                        Value::String(text) => text.parse().ok(),
                        _ => value.as_u64().and_then(|n| n.to_string().parse().ok()),
                    };
                    options.reservation_depth = Some(depth.ok_or_else(|| wrong_type(DEPTH))?);
                }
                "latency" => options.latency = Some(number("a number of seconds")?),
                "beta" => {
                    const BETA: &str = "a number of seconds >= 0 or \"disqualify\"";
                    let beta = match value {
                        Value::String(text) => parse_beta(text).ok(),
                        _ => value.as_f64().and_then(|secs| beta_from_secs(secs).ok()),
                    };
                    options.beta = Some(beta.ok_or_else(|| wrong_type(BETA))?);
                }
                "maintenance" => {
                    let path = name("the path of a maintenance file")?;
                    options.maintenance = Some(
                        MaintenanceFile::read(std::path::Path::new(path))
                            .map_err(OptionsError::Maintenance)?,
                    );
                }
                "area_schedule" => {
                    let path = name("the path of an area schedule file")?;
                    options.area_schedule = Some(
                        AreaScheduleFile::read(std::path::Path::new(path))
                            .map_err(OptionsError::AreaSchedule)?,
                    );
                }
                "conv" => options.conv = Some(count("a processor count")?),
                "max_resubmissions" => options.max_resubmissions = Some(count("a count")?),
                "lambda" => options.lambda = Some(number("a number")?),
                "tau" => options.tau = Some(number("a number")?),
                "reject_above" => options.reject_above = Some(number("a probability from 0 to 1")?),
                "max_time_in_system" => options.max_time_in_system = Some(number("a number of seconds")?),
                _ => return Err(OptionsError::UnknownKey { key: key.clone() }),
            }
        }
        Ok(options)
    }

    /// Each option from `self` if given, else from `fallback`.
    pub fn or(self, fallback: EngineOptions) -> EngineOptions {
        EngineOptions {
            policy: self.policy.or(fallback.policy),
            conv: self.conv.or(fallback.conv),
            admission: self.admission.or(fallback.admission),
            scheduling: self.scheduling.or(fallback.scheduling),
            predictor: self.predictor.or(fallback.predictor),
            lambda: self.lambda.or(fallback.lambda),
            tau: self.tau.or(fallback.tau),
            latency: self.latency.or(fallback.latency),
            beta: self.beta.or(fallback.beta),
            w_future: self.w_future.or(fallback.w_future),
            maintenance: self.maintenance.or(fallback.maintenance),
            area_schedule: self.area_schedule.or(fallback.area_schedule),
            max_resubmissions: self.max_resubmissions.or(fallback.max_resubmissions),
            max_time_in_system: self.max_time_in_system.or(fallback.max_time_in_system),
            placement: self.placement.or(fallback.placement),
            placement_weights: self.placement_weights.or(fallback.placement_weights),
            reject_above: self.reject_above.or(fallback.reject_above),
            reservation_depth: self.reservation_depth.or(fallback.reservation_depth),
            candidates: self.candidates.or(fallback.candidates),
            regulation: self.regulation.or(fallback.regulation),
        }
    }

    /// The engine config for a platform of `procs` processors.
    pub fn to_config(&self, procs: u32) -> Result<EngineConfig, OptionsError> {
        let policy = self.policy.ok_or(OptionsError::NoPolicy)?;
        let mut config = EngineConfig::new(procs, policy);
        if let Some(conv) = self.conv {
            if conv == 0 || conv > procs {
                return Err(OptionsError::ConvOutOfRange { conv, procs });
            }
            config.conv_procs = conv;
        }
        if let Some(admission) = self.admission {
            config.admission = admission;
        }
        if let Some(p) = self.reject_above {
            if !(0.0..=1.0).contains(&p) || self.admission == Some(Admission::AdmitAll) {
                return Err(OptionsError::RejectAbove(p));
            }
            config.admission = Admission::RejectPredicted;
            config.reject_above = Some(p);
        }
        if let Some(lambda) = self.lambda {
            config.lambda = lambda;
        }
        if let Some(tau) = self.tau {
            config.tau = tau;
        }
        if let Some(scheduling) = self.scheduling {
            config.scheduling = scheduling;
        }
        if let Some(predictor) = self.predictor {
            config.predictor = predictor;
        }
        if let Some(secs) = self.latency {
            config.thesis.latency = Time::instant_from_secs_f64(secs).ok_or(OptionsError::Latency(secs))?;
        }
        if let Some(beta) = self.beta {
            config.thesis.beta = beta;
        }
        if let Some(w_future) = self.w_future {
            config.thesis.w_future = w_future;
        }
        if let Some(placement) = self.placement {
            config.placement = placement;
        }
        if let Some(weights) = self.placement_weights {
            if config.placement != Placement::Topsis {
                return Err(OptionsError::WeightsWithoutTopsis);
            }
            config.placement_weights = weights;
        }
        if let Some(depth) = self.reservation_depth {
            config.reservation_depth = depth;
            if let Some(conflict) = config.depth_conflict() {
                return Err(OptionsError::Conflict(conflict));
            }
        }
        if let Some(conflict) = config.scheduling_conflict() {
            return Err(OptionsError::Conflict(conflict));
        }
        if let Some(file) = &self.maintenance {
            file.check(procs).map_err(OptionsError::Maintenance)?;
            config.maintenance = file.windows().to_vec();
        }
        if let Some(file) = &self.area_schedule {
            file.check(procs).map_err(OptionsError::AreaSchedule)?;
            config.area_schedule = file.changes().to_vec();
            if config.scheduling == Scheduling::SharedQueue {
                return Err(OptionsError::Conflict(
                    "an area schedule needs --scheduling hpc-first: under shared-queue nothing is evicted, \
                     so a shrink could not clear the processors leaving the area"
                        .into(),
                ));
            }
        }
        if let Some(rules) = self.candidates {
            config.candidates = rules;
        }
        config.regulation = self.regulation;
        if let Some(problem) = config.candidates.problem() {
            return Err(OptionsError::Conflict(problem));
        }
        if let Some(problem) = config.regulation.as_ref().and_then(Regulation::problem) {
            return Err(OptionsError::Conflict(problem));
        }
        config.lifecycle = Lifecycle {
            max_resubmissions: self.max_resubmissions.unwrap_or(DEFAULT_MAX_RESUBMISSIONS),
            max_time_in_system: match self.max_time_in_system {
                Some(secs) if !(secs.is_finite() && secs >= 0.0) => {
                    return Err(OptionsError::MaxTimeInSystem(secs))
                }
                Some(secs) => Some(Time::from_secs_f64(secs)),
                None => None,
            },
        };
        Ok(config)
    }
}

/// Cloud jobs the adapter creates itself through Batsim's dynamic jobs
/// (`REGISTER_PROFILE`/`REGISTER_JOB`), one every `jobs.interval` from
/// `start`, drawn by swf's injector ([`interstice_swf::inject_cloud_jobs`]),
/// so they are the jobs `swf inject` and `interstice replay` make with the
/// same options.
#[derive(Clone, Debug, PartialEq)]
pub struct CloudInjection {
    /// Interval, processors, walltime, run time, slack and seed of the jobs.
    pub jobs: InjectOptions,
    /// First injection time; `None`: the first static job submission (as
    /// `swf inject` starts at the trace's first submission).
    pub start: Option<Time>,
    /// Last possible injection time (default: until Batsim says
    /// `no_more_static_job_to_submit`).
    pub until: Option<Time>,
}

impl CloudInjection {
    /// Check the settings (positive interval, walltime and slack).
    pub fn validate(&self) -> Result<(), SwfError> {
        self.jobs.validate()
    }

    /// The cloud jobs from `start` on, generated as they are asked for;
    /// cloud job `k` has the id `k`.
    pub fn injector(&self, start: Time) -> CloudJobs {
        inject_cloud_jobs(&self.jobs, start, self.until.unwrap_or(Time::INFINITY), 0)
    }

    /// The largest processor count a cloud job may ask for.
    pub fn max_procs(&self) -> u32 {
        self.jobs.procs.max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sched_config_keys_parse_and_the_command_line_wins() {
        let from_batsim = EngineOptions::from_sched_config(
            r#"{"policy": "easy", "conv": 4, "admission": "reject-predicted", "lambda": 1.5, "tau": 2,
                "max-resubmissions": 3, "max_time_in_system": 60, "scheduling": "shared-queue"}"#,
        )
        .unwrap();
        assert_eq!(from_batsim.policy, Some(Policy::Easy));
        assert_eq!(from_batsim.max_resubmissions, Some(3));
        let cli = EngineOptions {
            policy: Some(Policy::Fcfs),
            ..EngineOptions::default()
        };
        let config = cli.or(from_batsim).to_config(8).unwrap();
        assert_eq!(config.policy, Policy::Fcfs);
        assert_eq!(
            (config.conv_procs, config.admission),
            (4, Admission::RejectPredicted)
        );
        assert_eq!((config.lambda, config.tau), (1.5, 2.0));
        assert_eq!(config.lifecycle.max_time_in_system, Some(Time::from_secs(60)));
        assert_eq!(config.scheduling, Scheduling::SharedQueue);
        assert_eq!(
            EngineOptions::from_sched_config("  ").unwrap(),
            EngineOptions::default()
        );
    }

    #[test]
    fn the_thesis_keys_parse_and_reach_the_config() {
        let dir = tempfile::tempdir().unwrap();
        let maintenance = dir.path().join("maint.txt");
        std::fs::write(&maintenance, "# start duration procs\n100 50 0-1,3\n").unwrap();
        let text = serde_json::json!({
            "policy": "easy", "scheduling": "shared-queue", "predictor": "thesis",
            "latency": 2.5, "beta": "disqualify", "w_future": "published", "maintenance": maintenance,
        })
        .to_string();
        let options = EngineOptions::from_sched_config(&text).unwrap();
        let config = options.to_config(4).unwrap();
        assert_eq!(config.scheduling, Scheduling::SharedQueue);
        assert_eq!(config.predictor, Predictor::Thesis);
        assert_eq!(config.thesis.latency, Time::from_secs_f64(2.5));
        assert_eq!(config.thesis.beta, Beta::Disqualify);
        assert_eq!(config.thesis.w_future, WFuture::Published);
        assert_eq!(
            config.maintenance,
            [interstice_core::Maintenance {
                start: Time::from_secs(100),
                duration: Time::from_secs(50),
                procs: interstice_core::ProcSet::from_ranges([(0, 1), (3, 3)]),
            }]
        );
        assert_eq!(config.validate(), Ok(()));
        let seconds = EngineOptions::from_sched_config(r#"{"beta": 30, "latency": 0}"#).unwrap();
        assert_eq!(seconds.beta, Some(Beta::Wait(Time::from_secs(30))));
        // Not given: core's defaults.
        let plain = EngineOptions {
            policy: Some(Policy::Easy),
            ..EngineOptions::default()
        }
        .to_config(4)
        .unwrap();
        let core = EngineConfig::new(4, Policy::Easy);
        assert_eq!(
            (plain.scheduling, plain.predictor, plain.thesis, plain.maintenance),
            (core.scheduling, core.predictor, core.thesis, core.maintenance)
        );
        // A window off the platform names the file and the line.
        assert_eq!(
            options.to_config(3).unwrap_err().to_string(),
            format!(
                "maintenance: {}:2: processor 3 does not exist: the platform has processors 0-2",
                maintenance.display()
            )
        );
    }

    #[test]
    fn the_reservation_depth_parses_as_a_count_or_a_word_and_is_checked_against_the_policy() {
        let depth = |text: &str| EngineOptions::from_sched_config(text).map(|o| o.reservation_depth);
        assert_eq!(
            depth(r#"{"reservation_depth": 500}"#)
                .unwrap()
                .unwrap()
                .to_string(),
            "500"
        );
        assert_eq!(
            depth(r#"{"reservation-depth": "unlimited"}"#).unwrap(),
            Some(ReservationDepth::Unlimited)
        );
        for bad in ["0", "\"deep\"", "-2", "1.5"] {
            assert_eq!(
                depth(&format!(r#"{{"reservation_depth": {bad}}}"#)).unwrap_err().to_string(),
                format!(
                    "sched-config key \"reservation_depth\": expected a number of jobs from 1, or \"unlimited\", \
                     found {bad}"
                )
            );
        }
        let easy = EngineOptions::from_sched_config(r#"{"policy": "easy", "reservation_depth": 4}"#).unwrap();
        let err = easy.to_config(8).unwrap_err().to_string();
        assert!(
            err.starts_with("reservation depth 4 applies to conservative"),
            "{err}"
        );
        let conservative =
            EngineOptions::from_sched_config(r#"{"policy": "conservative", "reservation_depth": 4}"#)
                .unwrap();
        assert_eq!(
            conservative.to_config(8).unwrap().reservation_depth.limit(),
            Some(4)
        );
    }

    #[test]
    fn bad_thesis_keys_are_explained() {
        let message = |text: &str| EngineOptions::from_sched_config(text).unwrap_err().to_string();
        assert_eq!(
            message(r#"{"scheduling": "together"}"#),
            "sched-config key \"scheduling\": unknown scheduling mode \"together\": expected hpc-first or shared-queue"
        );
        assert_eq!(
            message(r#"{"predictor": 1}"#),
            "sched-config key \"predictor\": expected a predictor name, found 1"
        );
        for beta in ["-1", "\"never\"", "true"] {
            assert_eq!(
                message(&format!(r#"{{"beta": {beta}}}"#)),
                format!("sched-config key \"beta\": expected a number of seconds >= 0 or \"disqualify\", found {beta}")
            );
        }
        assert_eq!(
            message(r#"{"latency": "soon"}"#),
            "sched-config key \"latency\": expected a number of seconds, found \"soon\""
        );
        let late = EngineOptions {
            policy: Some(Policy::Fcfs),
            latency: Some(-1.0),
            ..EngineOptions::default()
        };
        assert!(late
            .to_config(4)
            .unwrap_err()
            .to_string()
            .starts_with("latency -1 is not a number of seconds from 0"));
        let missing = message(r#"{"maintenance": "/nonexistent/maint.txt"}"#);
        assert!(
            missing.starts_with("maintenance: cannot open /nonexistent/maint.txt: "),
            "{missing}"
        );
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.txt");
        std::fs::write(&bad, "\n0 10\n").unwrap();
        let text = serde_json::json!({ "maintenance": bad }).to_string();
        assert!(
            message(&text).starts_with(&format!(
                "maintenance: {}:2: expected the 3 fields",
                bad.display()
            )),
            "{}",
            message(&text)
        );
    }

    #[test]
    fn placement_keys_parse_reach_the_config_and_explain_their_errors() {
        let options = EngineOptions::from_sched_config(
            r#"{"policy": "easy", "placement": "topsis", "placement-weights": "margin=1"}"#,
        )
        .unwrap();
        let config = options.to_config(4).unwrap();
        assert_eq!(config.placement, Placement::Topsis);
        assert_eq!(config.placement_weights.values(), [0.0, 0.0, 1.0, 0.0]);
        let message = |text: &str| EngineOptions::from_sched_config(text).unwrap_err().to_string();
        assert_eq!(
            message(r#"{"placement": "best"}"#),
            "sched-config key \"placement\": unknown placement \"best\": expected first-fit or topsis"
        );
        assert!(message(r#"{"placement_weights": "margin=-1"}"#).starts_with("placement weights: "));
        assert!(message(r#"{"placement_weights": 3}"#).contains("expected weights such as"));
        let weights_alone =
            EngineOptions::from_sched_config(r#"{"policy": "easy", "placement_weights": "margin=1"}"#)
                .unwrap()
                .to_config(4)
                .unwrap_err()
                .to_string();
        assert!(weights_alone.starts_with("placement weights are given but the placement is first-fit"));
    }

    #[test]
    fn bad_sched_config_and_missing_policy_are_explained() {
        let message = |text: &str| EngineOptions::from_sched_config(text).unwrap_err().to_string();
        assert_eq!(
            message("[1]"),
            format!("sched-config must be a JSON object with keys {SCHED_CONFIG_KEYS}")
        );
        assert_eq!(
            message(r#"{"colour": 1}"#),
            format!("sched-config has an unknown key \"colour\": expected {SCHED_CONFIG_KEYS}")
        );
        assert_eq!(
            message(r#"{"conv": -1}"#),
            "sched-config key \"conv\": expected a processor count, found -1"
        );
        assert_eq!(
            message(r#"{"max-resubmissions": "x"}"#),
            "sched-config key \"max-resubmissions\": expected a count, found \"x\""
        );
        assert_eq!(
            message(r#"{"policy": "sjf"}"#),
            "sched-config key \"policy\": unknown policy \"sjf\": expected one of fcfs, easy, conservative, convergence, cars"
        );
        assert!(message("{").starts_with("sched-config is not valid JSON ("));
        assert_eq!(
            EngineOptions::default().to_config(4).unwrap_err().to_string(),
            "no scheduling policy: pass --policy or put {\"policy\": …} in Batsim's --sched-cfg"
        );
        let too_wide = EngineOptions {
            policy: Some(Policy::Fcfs),
            conv: Some(9),
            ..EngineOptions::default()
        };
        assert_eq!(
            too_wide.to_config(8).unwrap_err().to_string(),
            "the convergence area has 9 processors but the platform has 8: expected 1..=8"
        );
        let forever = EngineOptions {
            policy: Some(Policy::Fcfs),
            max_time_in_system: Some(-1.0),
            ..EngineOptions::default()
        };
        assert_eq!(
            forever.to_config(8).unwrap_err().to_string(),
            "max time in system -1 is not a non-negative number of seconds"
        );
    }
}
