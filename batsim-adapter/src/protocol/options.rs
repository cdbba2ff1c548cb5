//! The adapter's settings: engine options (from the command line and/or
//! Batsim's `--sched-cfg` JSON) and cloud-job injection.

use interstice_core::{Admission, EngineConfig, Lifecycle, Policy, Time};
use interstice_swf::{inject_cloud_jobs, CloudJobs, InjectOptions, SwfError};
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
    /// Overbooking risk factor λ (default 1).
    pub lambda: Option<f64>,
    /// Counter-offer factor τ (default 1).
    pub tau: Option<f64>,
    /// Maximum resubmissions of an evicted cloud job (default
    /// [`DEFAULT_MAX_RESUBMISSIONS`]; the session allows none when Batsim runs
    /// without dynamic jobs).
    pub max_resubmissions: Option<u32>,
    /// Maximum time in the system of a cloud job, seconds (default: unbounded).
    pub max_time_in_system: Option<f64>,
}

/// Resubmissions allowed to an evicted cloud job when no option says
/// otherwise: the experiment default, [`interstice_swf::defaults::MAX_RESUBMISSIONS`].
pub const DEFAULT_MAX_RESUBMISSIONS: u32 = interstice_swf::defaults::MAX_RESUBMISSIONS;

const SCHED_CONFIG_KEYS: &str = "policy, conv, admission, lambda, tau, max_resubmissions, max_time_in_system";

impl EngineOptions {
    /// Parse Batsim's `sched-config` string: a JSON object with any of the keys
    /// `policy`, `conv`, `admission`, `lambda`, `tau`, `max_resubmissions`,
    /// `max_time_in_system` (seconds); `-` and `_` are interchangeable. An
    /// empty string gives no options.
    pub fn from_sched_config(text: &str) -> Result<EngineOptions, String> {
        let mut options = EngineOptions::default();
        if text.trim().is_empty() {
            return Ok(options);
        }
        let value: Value = serde_json::from_str(text).map_err(|e| {
            format!(
                "sched-config is not valid JSON ({e}): expected an object such as {{\"policy\": \"easy\"}}"
            )
        })?;
        let obj = value
            .as_object()
            .ok_or_else(|| format!("sched-config must be a JSON object with keys {SCHED_CONFIG_KEYS}"))?;
        for (key, value) in obj {
            let name = key.replace('-', "_");
            let bad =
                |expected: &str| format!("sched-config key {key:?}: expected {expected}, found {value}");
            match name.as_str() {
                "policy" => {
                    let text = value.as_str().ok_or_else(|| bad("a policy name"))?;
                    options.policy = Some(
                        text.parse()
                            .map_err(|e| format!("sched-config key {key:?}: {e}"))?,
                    );
                }
                "admission" => {
                    let text = value.as_str().ok_or_else(|| bad("an admission mode"))?;
                    options.admission = Some(
                        text.parse()
                            .map_err(|e| format!("sched-config key {key:?}: {e}"))?,
                    );
                }
                "conv" => {
                    let n = value
                        .as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(|| bad("a processor count"))?;
                    options.conv = Some(n);
                }
                "max_resubmissions" => {
                    let n = value
                        .as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(|| bad("a count"))?;
                    options.max_resubmissions = Some(n);
                }
                "lambda" => options.lambda = Some(value.as_f64().ok_or_else(|| bad("a number"))?),
                "tau" => options.tau = Some(value.as_f64().ok_or_else(|| bad("a number"))?),
                "max_time_in_system" => {
                    options.max_time_in_system =
                        Some(value.as_f64().ok_or_else(|| bad("a number of seconds"))?)
                }
                _ => {
                    return Err(format!(
                        "sched-config has an unknown key {key:?}: expected {SCHED_CONFIG_KEYS}"
                    ))
                }
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
            lambda: self.lambda.or(fallback.lambda),
            tau: self.tau.or(fallback.tau),
            max_resubmissions: self.max_resubmissions.or(fallback.max_resubmissions),
            max_time_in_system: self.max_time_in_system.or(fallback.max_time_in_system),
        }
    }

    /// The engine config for a platform of `procs` processors.
    pub fn to_config(&self, procs: u32) -> Result<EngineConfig, String> {
        let policy = self.policy.ok_or_else(|| {
            "no scheduling policy: pass --policy or put {\"policy\": …} in Batsim's --sched-cfg".to_string()
        })?;
        let mut config = EngineConfig::new(procs, policy);
        if let Some(conv) = self.conv {
            if conv == 0 || conv > procs {
                return Err(format!(
                    "the convergence area has {conv} processors but the platform has {procs}: \
                     expected 1..={procs}"
                ));
            }
            config.conv_procs = conv;
        }
        if let Some(admission) = self.admission {
            config.admission = admission;
        }
        if let Some(lambda) = self.lambda {
            config.lambda = lambda;
        }
        if let Some(tau) = self.tau {
            config.tau = tau;
        }
        config.lifecycle = Lifecycle {
            max_resubmissions: self.max_resubmissions.unwrap_or(DEFAULT_MAX_RESUBMISSIONS),
            max_time_in_system: match self.max_time_in_system {
                Some(secs) if !(secs.is_finite() && secs >= 0.0) => {
                    return Err(format!(
                        "max time in system {secs} is not a non-negative number of seconds"
                    ))
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
                "max-resubmissions": 3, "max_time_in_system": 60}"#,
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
        assert_eq!(
            EngineOptions::from_sched_config("  ").unwrap(),
            EngineOptions::default()
        );
    }

    #[test]
    fn bad_sched_config_and_missing_policy_are_explained() {
        assert!(EngineOptions::from_sched_config("[1]")
            .unwrap_err()
            .contains("JSON object"));
        assert!(EngineOptions::from_sched_config(r#"{"colour": 1}"#)
            .unwrap_err()
            .contains("unknown key \"colour\""));
        assert!(EngineOptions::from_sched_config(r#"{"conv": -1}"#)
            .unwrap_err()
            .contains("processor count"));
        assert!(EngineOptions::default()
            .to_config(4)
            .unwrap_err()
            .contains("--policy"));
        let too_wide = EngineOptions {
            policy: Some(Policy::Fcfs),
            conv: Some(9),
            ..EngineOptions::default()
        };
        assert!(too_wide.to_config(8).unwrap_err().contains("1..=8"));
    }
}
