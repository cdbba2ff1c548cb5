//! `β` of the thesis's predictor ([`Beta`]) as written on command lines and
//! in configs: a number of seconds ≥ 0, or the word `disqualify`. The one
//! spelling of `--beta` (`replay`, `sweep`, `batsim`), Batsim's
//! `--sched-cfg` key `beta`, the daemon's `engine.beta` and the value
//! `summary.json` echoes. (Core defines the value, not its text.)

use interstice_core::{Beta, Time};
use std::fmt;

/// The word for [`Beta::Disqualify`].
pub const DISQUALIFY: &str = "disqualify";

/// A text or number that is not a `β`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0} is not a β: give seconds from 0 to {max:e} (e.g. 30), or `disqualify` to never predict a start in a future slot",
    max = Time::MAX_INSTANT_SECS
)]
pub struct BadBeta(String);

/// `30`, `0.5` (seconds) or `disqualify`.
pub fn parse_beta(text: &str) -> Result<Beta, BadBeta> {
    let text = text.trim();
    if text == DISQUALIFY {
        return Ok(Beta::Disqualify);
    }
    text.parse::<f64>()
        .ok()
        .and_then(Time::instant_from_secs_f64)
        .map(Beta::Wait)
        .ok_or_else(|| BadBeta(format!("{text:?}")))
}

/// A `β` given as a number of seconds (JSON, YAML).
pub fn beta_from_secs(secs: f64) -> Result<Beta, BadBeta> {
    Time::instant_from_secs_f64(secs)
        .map(Beta::Wait)
        .ok_or_else(|| BadBeta(secs.to_string()))
}

/// `β` as JSON: seconds, or `"disqualify"`.
pub fn beta_json(beta: Beta) -> serde_json::Value {
    match beta {
        Beta::Wait(wait) => wait.as_secs_f64().into(),
        Beta::Disqualify => DISQUALIFY.into(),
    }
}

/// Displays a `β` as [`parse_beta`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShowBeta(pub Beta);

impl fmt::Display for ShowBeta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Beta::Wait(wait) => write!(f, "{wait}"),
            Beta::Disqualify => f.write_str(DISQUALIFY),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_or_disqualify_round_trip() {
        for text in ["0", "30", "0.5", DISQUALIFY] {
            let beta = parse_beta(text).unwrap();
            assert_eq!(ShowBeta(beta).to_string(), text);
        }
        assert_eq!(parse_beta(" 12 "), Ok(Beta::Wait(Time::from_secs(12))));
        assert_eq!(beta_from_secs(1.5), Ok(Beta::Wait(Time::from_secs_f64(1.5))));
        assert_eq!(beta_json(Beta::Disqualify), serde_json::json!("disqualify"));
        assert_eq!(beta_json(Beta::Wait(Time::from_secs(3))), serde_json::json!(3.0));
    }

    #[test]
    fn anything_else_is_explained() {
        for text in ["-1", "never", "nan", "inf", "Disqualify", ""] {
            let err = parse_beta(text).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("{:?} is not a β: give seconds from 0", text.trim()))
                    && err.contains("`disqualify`"),
                "{text}: {err}"
            );
        }
        assert_eq!(
            beta_from_secs(-2.0).unwrap_err().to_string(),
            "-2 is not a β: give seconds from 0 to 1e12 (e.g. 30), or `disqualify` to never predict a start \
             in a future slot"
        );
    }
}
