//! Why a cloud job was refused at admission: the one list of reasons, their
//! names (the metrics' label, `jobs.csv`'s and `summary.json`'s split) and
//! the text a user is shown.
//!
//! [`crate::Engine::submit`] asks in this order, and the first that refuses
//! is the job's [`Refusal`]: the candidate rules ([`crate::candidate`]), the
//! admission mode ([`crate::Admission::rejects`]), the submission-rate
//! regulator ([`crate::regulate`]). Every refusal is a rejection: the job is
//! counted in [`crate::Summary::rejected`] (and, by reason, in
//! `rejected_not_candidate` and `rejected_regulated`), gets
//! [`crate::Decision::Reject`] and never runs.

use crate::candidate::NotCandidate;
use crate::predict::Prediction;
use crate::time::Time;
use std::fmt;

/// Why a cloud job was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    /// The admission mode refused its predicted violation (or its violation
    /// probability above `reject_above`).
    Predicted,
    /// It is outside the candidate rules.
    NotCandidate(NotCandidate),
    /// Admitting it would bring the submission rate above the regulator's
    /// threshold.
    Regulated {
        /// The rate it would have brought (admitted work ÷ idle capacity).
        rate: f64,
        /// The regulator's window.
        window: Time,
        /// The regulator's threshold.
        threshold: f64,
        /// The earliest start the regulator would allow it (`None`: none).
        later_start: Option<Time>,
        /// The SLO counter-offered for that start (`F^SLO`).
        counter_offer_slo: Option<Time>,
        /// The submitter's share of the threshold, when that is what the job
        /// was over (`rate` is then that user's work ÷ the idle capacity).
        share: Option<f64>,
    },
}

impl Refusal {
    /// [`Refusal::Predicted`]'s name.
    pub const PREDICTED: &'static str = "predicted";
    /// [`Refusal::NotCandidate`]'s name.
    pub const NOT_CANDIDATE: &'static str = "not-candidate";
    /// [`Refusal::Regulated`]'s name.
    pub const REGULATED: &'static str = "regulated";
    /// Every reason's name (the metrics' labels, known before any refusal).
    pub const NAMES: [&'static str; 3] = [Self::PREDICTED, Self::NOT_CANDIDATE, Self::REGULATED];

    /// The reason's name: `predicted`, `not-candidate`, `regulated`.
    pub fn name(&self) -> &'static str {
        match self {
            Refusal::Predicted => Self::PREDICTED,
            Refusal::NotCandidate(_) => Self::NOT_CANDIDATE,
            Refusal::Regulated { .. } => Self::REGULATED,
        }
    }

    /// The SLO counter-offered with this refusal: the prediction's `F^SLO`
    /// for a predicted violation, the regulator's for a later start, none
    /// for a non-candidate (its answer is the nearest acceptable request).
    pub fn counter_offer_slo(&self, prediction: &Prediction) -> Option<Time> {
        match self {
            Refusal::Predicted => prediction.counter_offer_slo,
            Refusal::NotCandidate(_) => None,
            Refusal::Regulated {
                counter_offer_slo, ..
            } => *counter_offer_slo,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Predicted => f.write_str("the plan predicts the job would miss its SLO"),
            Refusal::NotCandidate(not) => not.fmt(f),
            Refusal::Regulated {
                rate,
                window,
                threshold,
                later_start,
                share,
                ..
            } => {
                match share {
                    Some(share) => write!(
                        f,
                        "your cloud work admitted over the last {window} s would be {rate:.2} times the area's idle \
                         capacity over the next {window} s, above your share of the regulator's threshold \
                         ({share} × {threshold}), which keeps room for other users"
                    )?,
                    None => write!(
                        f,
                        "the cloud work admitted over the last {window} s would be {rate:.2} times the area's idle \
                         capacity over the next {window} s, above the regulator's threshold {threshold}"
                    )?,
                }
                match later_start {
                    Some(t) => write!(f, ": submit again from {t} s, or accept the counter-offered SLO"),
                    None => {
                        f.write_str(": the job alone is above it; ask for fewer processors or less walltime")
                    }
                }
            }
        }
    }
}
