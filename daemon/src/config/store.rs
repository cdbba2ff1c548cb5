//! The `store:` section: what the state keeps of submissions it need not
//! keep forever. A rejected or finished submission's row (its `argv`,
//! `env`, up to `quota.max_job_text_bytes`) serves its owner's `GET
//! /v1/jobs` and the audit, not the engine; without a bound one user filled
//! the disk with them (336 MB of rejections in 20 s; 60 MB of accepted
//! `/bin/true` jobs in 15 s).

use serde::Deserialize;

/// `store:` section.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StoreConfig {
    /// Rejected submissions older than this are deleted, seconds.
    #[serde(default = "default_rejected_retention")]
    pub rejected_retention_seconds: f64,
    /// The most rejected submissions kept per user: beyond it, that user's
    /// oldest are deleted as new ones come.
    #[serde(default = "default_max_rejected_per_user")]
    pub max_rejected_per_user: u32,
    /// Finished jobs (ended, failed, cancelled) whose end is older than
    /// this are deleted, seconds.
    #[serde(default = "default_finished_retention")]
    pub finished_retention_seconds: f64,
    /// The most finished jobs kept per user: beyond it, that user's oldest
    /// are deleted.
    #[serde(default = "default_max_finished_per_user")]
    pub max_finished_per_user: u32,
}

/// Thirty days.
fn default_finished_retention() -> f64 {
    30.0 * 24.0 * 3600.0
}

fn default_max_finished_per_user() -> u32 {
    10_000
}

/// A week.
fn default_rejected_retention() -> f64 {
    7.0 * 24.0 * 3600.0
}

fn default_max_rejected_per_user() -> u32 {
    1000
}

impl StoreConfig {
    /// Every problem of the section, each naming its key.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if !(self.rejected_retention_seconds.is_finite() && self.rejected_retention_seconds > 0.0) {
            problems.push(format!(
                "store.rejected_retention_seconds: {} must be a positive number of seconds",
                self.rejected_retention_seconds
            ));
        }
        if !(self.finished_retention_seconds.is_finite() && self.finished_retention_seconds > 0.0) {
            problems.push(format!(
                "store.finished_retention_seconds: {} must be a positive number of seconds",
                self.finished_retention_seconds
            ));
        }
        if self.max_finished_per_user == 0 {
            problems.push(
                "store.max_finished_per_user: must be at least 1 (a user's latest job stays, with its outcome)"
                    .to_string(),
            );
        }
        if self.max_rejected_per_user == 0 {
            problems.push(
                "store.max_rejected_per_user: must be at least 1 (a user's latest rejection stays, with its counter-offer)"
                    .to_string(),
            );
        }
        problems
    }
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            rejected_retention_seconds: default_rejected_retention(),
            max_rejected_per_user: default_max_rejected_per_user(),
            finished_retention_seconds: default_finished_retention(),
            max_finished_per_user: default_max_finished_per_user(),
        }
    }
}
