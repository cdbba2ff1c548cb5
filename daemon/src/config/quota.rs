//! The `quota:` section: what one user may hold of this daemon at a time.
//! Without a bound one user queued 940 jobs of 63 KB argv each in 15 s,
//! doubling the database and pushing every other user's next job an hour
//! and a half back.

use serde::Deserialize;

/// The most a job's `argv`, `env`, `workdir` and `features` may be given
/// (under the API's 2 MB request bound, with room for JSON's escapes).
pub const MAX_JOB_TEXT_CEILING: u64 = 1 << 20;

/// `quota:` section.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QuotaConfig {
    /// The most accepted jobs one user may have queued or running at once
    /// (null: no bound). A submission beyond it is refused (429) until one
    /// of that user's jobs ends.
    #[serde(default = "default_max_active_per_user")]
    pub max_active_per_user: Option<u32>,
    /// The most bytes a job's `argv`, `env`, `workdir` and `features` may
    /// hold together: every job is stored and listed with them.
    #[serde(default = "default_max_job_text_bytes")]
    pub max_job_text_bytes: u64,
}

fn default_max_active_per_user() -> Option<u32> {
    Some(100)
}

/// 64 KiB.
fn default_max_job_text_bytes() -> u64 {
    64 << 10
}

impl QuotaConfig {
    /// Every problem of the section, each naming its key.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.max_active_per_user == Some(0) {
            problems.push(
                "quota.max_active_per_user: 0 would refuse every job; give at least 1, or null for no bound"
                    .to_string(),
            );
        }
        if !(1024..=MAX_JOB_TEXT_CEILING).contains(&self.max_job_text_bytes) {
            problems.push(format!(
                "quota.max_job_text_bytes: {} must be between 1024 and {MAX_JOB_TEXT_CEILING} (1 MiB)",
                self.max_job_text_bytes
            ));
        }
        problems
    }
}

impl Default for QuotaConfig {
    fn default() -> Self {
        QuotaConfig {
            max_active_per_user: default_max_active_per_user(),
            max_job_text_bytes: default_max_job_text_bytes(),
        }
    }
}
