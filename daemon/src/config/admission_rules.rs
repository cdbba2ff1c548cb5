//! `engine.candidates` and `engine.regulate`: the candidate rules and the
//! submission-rate regulator as written, resolved into core's
//! [`CandidateRules`] and [`Regulation`] (core owns both rules and their
//! checks; this module names the keys).

use interstice_core::{CandidateRules, EngineConfig, Regulation, Time};
use serde::Deserialize;

/// `engine.candidates`: which cloud jobs may be admitted to the area at all
/// (thesis §4.2, §6.4). Every key is optional; none set, no limit.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CandidatesSection {
    /// The longest walltime admitted, seconds.
    #[serde(default)]
    pub max_walltime_seconds: Option<f64>,
    /// The most processors admitted.
    #[serde(default)]
    pub max_width: Option<u32>,
    /// The smallest slack factor (SLO ÷ walltime) admitted.
    #[serde(default)]
    pub min_slack: Option<f64>,
}

/// `engine.regulate`: the submission-rate regulator (thesis §6.9). Absent:
/// no regulation.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RegulateSection {
    /// The window over which admitted work and idle capacity are measured, seconds.
    pub window_seconds: f64,
    /// The largest rate admitted: cloud work admitted over the window ÷ the
    /// area's idle capacity over the next window.
    pub threshold: f64,
    /// Each user's part of the threshold, in (0, 1]: one user's admitted
    /// work may bring the rate to at most this share of it, so that no user
    /// fills the window for the others. Absent: users are not told apart.
    #[serde(default)]
    pub per_user_share: Option<f64>,
}

/// Apply `engine.candidates` and `engine.regulate` to `config`, each problem
/// naming its key and the fix.
pub(super) fn apply(
    candidates: Option<&CandidatesSection>,
    regulate: Option<&RegulateSection>,
    config: &mut EngineConfig,
    problems: &mut Vec<String>,
) {
    if let Some(section) = candidates {
        let mut rules = CandidateRules {
            max_width: section.max_width,
            min_slack: section.min_slack,
            ..CandidateRules::default()
        };
        if let Some(secs) = section.max_walltime_seconds {
            match Time::instant_from_secs_f64(secs) {
                Some(t) if t > Time::ZERO => rules.max_walltime = Some(t),
                _ => problems.push(format!(
                    "engine.candidates.max_walltime_seconds: {secs} is not a positive number of seconds; give \
                     e.g. 3600, or remove the key for no limit"
                )),
            }
        }
        match rules.problem() {
            Some(problem) => problems.push(format!("engine.candidates: {problem}")),
            None => config.candidates = rules,
        }
    }
    if let Some(section) = regulate {
        let Some(window) = Time::instant_from_secs_f64(section.window_seconds) else {
            problems.push(format!(
                "engine.regulate.window_seconds: {} is not a number of seconds; give e.g. 3600",
                section.window_seconds
            ));
            return;
        };
        let regulation = Regulation {
            window,
            threshold: section.threshold,
            per_user_share: section.per_user_share,
        };
        match regulation.problem() {
            Some(problem) => problems.push(format!("engine.regulate: {problem}")),
            None => config.regulation = Some(regulation),
        }
    }
}
