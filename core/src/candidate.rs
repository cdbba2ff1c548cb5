//! Which cloud jobs are candidates for the convergence area: the one home of
//! the candidate rules.
//!
//! The thesis (§4.2, §6.4) migrates to the area only short, narrow,
//! independent jobs with enough slack: a long or wide job occupies holes the
//! HPC plan keeps closing (it is evicted, or it waits), and a job whose SLO
//! leaves no slack over its walltime violates it at the first delay. A site
//! bounds the three with [`CandidateRules`]: a largest walltime, a largest
//! width (processors) and a smallest slack factor (`SLO ÷ walltime`, the
//! factor [`crate::slo::slo_for`] multiplies the walltime by). Every limit is
//! off by default, so every job today's engine admits is still a candidate.
//!
//! A job outside the rules is refused at submission ([`crate::Engine::submit`]
//! answers [`crate::Submitted::Rejected`], the record names the refusal in
//! [`crate::JobRecord::refusal`]) with a [`NotCandidate`]: the limits it
//! breaks, each with a human reason, and the nearest request the rules accept.

use crate::slo::{slo_for, valid_slack};
use crate::time::Time;
use std::fmt;

/// Limits a cloud job must be within to be admitted to the area (all `None`:
/// every job is a candidate).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CandidateRules {
    /// The longest requested walltime a candidate may have.
    pub max_walltime: Option<Time>,
    /// The most processors a candidate may ask for.
    pub max_width: Option<u32>,
    /// The smallest slack factor (`SLO ÷ walltime`) a candidate may have. A
    /// job without an SLO never violates one, so this limit does not apply
    /// to it.
    pub min_slack: Option<f64>,
}

/// A cloud job's shape as the candidate rules read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Processors asked for.
    pub procs: u32,
    /// Requested walltime.
    pub walltime: Time,
    /// Its SLO (response time), if any.
    pub slo: Option<Time>,
}

/// One candidate limit a request breaks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// The walltime is above [`CandidateRules::max_walltime`].
    Walltime {
        /// What the job asked for.
        asked: Time,
        /// The limit.
        limit: Time,
    },
    /// The width is above [`CandidateRules::max_width`].
    Width {
        /// What the job asked for.
        asked: u32,
        /// The limit.
        limit: u32,
    },
    /// The slack factor is below [`CandidateRules::min_slack`].
    Slack {
        /// The job's SLO.
        slo: Time,
        /// The job's walltime.
        walltime: Time,
        /// The smallest factor accepted.
        min: f64,
    },
}

impl Limit {
    /// Every limit's name, in [`Limit::name`]'s order (the metrics' labels).
    pub const NAMES: [&'static str; 3] = ["walltime", "width", "slack"];

    /// The limit's name as the metrics label it: `walltime`, `width`, `slack`.
    pub fn name(&self) -> &'static str {
        match self {
            Limit::Walltime { .. } => Self::NAMES[0],
            Limit::Width { .. } => Self::NAMES[1],
            Limit::Slack { .. } => Self::NAMES[2],
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Limit::Walltime { asked, limit } => write!(
                f,
                "walltime {asked} s exceeds the candidate limit {limit} s: ask for at most {limit} s"
            ),
            Limit::Width { asked, limit } => write!(
                f,
                "{asked} processors exceed the candidate limit {limit}: ask for at most {limit} processors"
            ),
            Limit::Slack { slo, walltime, min } => write!(
                f,
                "slack factor {:.2} (SLO {slo} s ÷ walltime {walltime} s) is below the candidate minimum {min}: \
                 ask for an SLO of at least {} s or a shorter walltime",
                slo.as_secs_f64() / walltime.as_secs_f64(),
                whole_secs_up(slo_for(walltime, min)),
            ),
        }
    }
}

/// Why a cloud job is not a candidate, and the nearest request that is.
#[derive(Clone, Debug, PartialEq)]
pub struct NotCandidate {
    /// Every limit the request breaks (at least one), in the order walltime,
    /// width, slack.
    pub limits: Vec<Limit>,
    /// The nearest acceptable request: the walltime and width cut to their
    /// limits, the SLO raised to the smallest slack over that walltime
    /// (whole seconds, rounded up).
    pub nearest: Request,
}

impl fmt::Display for NotCandidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reasons: Vec<String> = self.limits.iter().map(Limit::to_string).collect();
        let n = &self.nearest;
        write!(
            f,
            "not a candidate for the convergence area: {}; nearest acceptable request: {} processors, \
             walltime {} s",
            reasons.join("; "),
            n.procs,
            n.walltime
        )?;
        match n.slo {
            Some(slo) => write!(f, ", SLO {slo} s"),
            None => Ok(()),
        }
    }
}

/// `t` rounded up to a whole second.
fn whole_secs_up(t: Time) -> Time {
    let second = Time::from_secs(1).ticks();
    let whole = t.ticks() / second + i64::from(t.ticks() % second > 0);
    Time::from_ticks(whole.saturating_mul(second))
}

impl CandidateRules {
    /// No limit set: every job is a candidate.
    pub fn is_unlimited(&self) -> bool {
        *self == CandidateRules::default()
    }

    /// What is wrong with the rules, naming the field and the fix; `None`
    /// when they are usable.
    pub fn problem(&self) -> Option<String> {
        if let Some(wt) = self.max_walltime {
            if wt <= Time::ZERO || wt.is_infinite() {
                return Some(format!(
                    "candidate max_walltime is {wt} s: give a positive, finite number of seconds, or none for \
                     no limit"
                ));
            }
        }
        if self.max_width == Some(0) {
            return Some(
                "candidate max_width is 0: a job needs at least one processor; give 1 or more, or none for no \
                 limit"
                    .into(),
            );
        }
        match self.min_slack {
            Some(slack) if !valid_slack(slack) => Some(format!(
                "candidate min_slack is {slack}: give a finite factor above 0 (SLO ÷ walltime, e.g. 2), or none \
                 for no limit"
            )),
            _ => None,
        }
    }

    /// Is `request` a candidate? If not, every limit it breaks and the
    /// nearest acceptable request.
    pub fn check(&self, request: Request) -> Result<(), NotCandidate> {
        let mut limits = Vec::new();
        let mut nearest = request;
        if let Some(limit) = self.max_walltime.filter(|&limit| request.walltime > limit) {
            limits.push(Limit::Walltime {
                asked: request.walltime,
                limit,
            });
            nearest.walltime = limit;
        }
        if let Some(limit) = self.max_width.filter(|&limit| request.procs > limit) {
            limits.push(Limit::Width {
                asked: request.procs,
                limit,
            });
            nearest.procs = limit;
        }
        if let (Some(min), Some(slo)) = (self.min_slack, request.slo) {
            if slo < slo_for(request.walltime, min) {
                limits.push(Limit::Slack {
                    slo,
                    walltime: request.walltime,
                    min,
                });
            }
            let needed = slo_for(nearest.walltime, min);
            if slo < needed {
                nearest.slo = Some(whole_secs_up(needed));
            }
        }
        if limits.is_empty() {
            Ok(())
        } else {
            Err(NotCandidate { limits, nearest })
        }
    }
}

#[cfg(test)]
mod tests;
