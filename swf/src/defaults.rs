//! The one table of experiment defaults: what `interstice replay`, `sweep`,
//! `batsim`, `swf inject` and the daemon use when no option says otherwise.
//! Command-line flags take their defaults from here (or from
//! [`interstice_core::EngineConfig::new`] for the engine's own knobs), never
//! restate the numbers.

use interstice_core::{Admission, EngineConfig, Policy, Predictor, Scheduling, ThesisPrediction, Time};

/// Seed of the cloud jobs' random draws (processors, run times).
pub const SEED: u64 = 1;

/// Slack factor `f` of a cloud job's SLO (`f × walltime`): the engine's rule,
/// [`interstice_core::DEFAULT_SLACK`].
pub const SLACK: f64 = interstice_core::DEFAULT_SLACK;

/// Resubmissions allowed to an evicted cloud job (the thesis's setting; the
/// engine alone allows none, see [`interstice_core::Lifecycle`]).
pub const MAX_RESUBMISSIONS: u32 = 3;

/// Seconds between two injected cloud jobs where a command has a default
/// (`batsim --inject-cloud`, `bench replay`; the thesis's setting). `replay`
/// and `sweep` inject only when given an interval.
pub const CLOUD_INTERVAL_SECS: f64 = 10.0;

/// Walltime of an injected cloud job, seconds.
pub const CLOUD_WALLTIME_SECS: f64 = 180.0;

/// Processors of an injected cloud job (the `--cloud-procs` syntax).
pub const CLOUD_PROCS: &str = "1";

/// Run time of an injected cloud job (the `--cloud-runtime` syntax).
pub const CLOUD_RUNTIME: &str = "walltime";

/// Factor applied to every HPC walltime.
pub const WALLTIME_FACTOR: f64 = 1.0;

/// The reconciliation factor α of an injected cloud job's walltime
/// ([`interstice_core::reconcile_walltime`]): 1 leaves it unchanged.
pub const ALPHA: f64 = 1.0;

/// The engine's admission mode when none is given.
pub fn admission() -> Admission {
    engine_defaults().admission
}

/// The engine's overbooking risk factor λ when none is given.
pub fn lambda() -> f64 {
    engine_defaults().lambda
}

/// The engine's counter-offer factor τ when none is given.
pub fn tau() -> f64 {
    engine_defaults().tau
}

/// How cloud jobs share the area with HPC jobs when nothing says otherwise.
pub fn scheduling() -> Scheduling {
    engine_defaults().scheduling
}

/// The engine's start predictor when none is given.
pub fn predictor() -> Predictor {
    engine_defaults().predictor
}

/// The thesis predictor's latency `r` and `β` when none is given.
pub fn thesis() -> ThesisPrediction {
    engine_defaults().thesis
}

fn engine_defaults() -> EngineConfig {
    EngineConfig::new(1, Policy::Fcfs)
}

/// [`CLOUD_WALLTIME_SECS`] as a [`Time`].
pub fn cloud_walltime() -> Time {
    Time::from_secs_f64(CLOUD_WALLTIME_SECS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_parse() {
        assert!(CLOUD_PROCS.parse::<crate::ProcsChoice>().is_ok());
        assert_eq!(
            CLOUD_RUNTIME.parse::<crate::RuntimeSpec>().unwrap(),
            crate::RuntimeSpec::WALLTIME
        );
        assert_eq!((lambda(), tau()), (1.0, 1.0));
        assert!(interstice_core::slo::valid_slack(SLACK));
        assert!(interstice_core::valid_alpha(ALPHA));
        assert_eq!(
            interstice_core::reconcile_walltime(cloud_walltime(), ALPHA),
            cloud_walltime()
        );
    }
}
