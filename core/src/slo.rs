//! The one rule that turns a slack factor into a response-time SLO.
//!
//! The thesis (§6.7, Table 6.3) gives each cloud job an SLO of `f × wt`, `f` its slack
//! factor and `wt` its requested walltime. Every place that fills in a
//! missing SLO (workload injection, the simulators, the CLI client, the Slurm
//! `job_submit` plugin) calls [`slo_for`], with [`DEFAULT_SLACK`] when the user
//! gave no factor.

use crate::time::Time;

/// The slack factor used when none is given: an SLO of twice the walltime.
pub const DEFAULT_SLACK: f64 = 2.0;

/// The SLO of a job with `walltime` and slack factor `slack`: `slack × walltime`
/// (an infinite walltime gives an infinite SLO).
pub fn slo_for(walltime: Time, slack: f64) -> Time {
    walltime.mul_f64(slack)
}

/// Is `slack` a usable slack factor (finite and positive)? Below 1 the SLO is
/// shorter than the walltime, which is allowed but rarely meant.
pub fn valid_slack(slack: f64) -> bool {
    slack.is_finite() && slack > 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slo_is_slack_times_walltime() {
        assert_eq!(slo_for(Time::from_secs(180), DEFAULT_SLACK), Time::from_secs(360));
        assert_eq!(slo_for(Time::from_secs(180), 1.25), Time::from_secs(225));
        assert!(slo_for(Time::INFINITY, 2.0).is_infinite());
    }

    #[test]
    fn slack_must_be_finite_and_positive() {
        assert!(valid_slack(1.0) && valid_slack(0.5));
        assert!(
            !valid_slack(0.0) && !valid_slack(-1.0) && !valid_slack(f64::NAN) && !valid_slack(f64::INFINITY)
        );
    }
}
