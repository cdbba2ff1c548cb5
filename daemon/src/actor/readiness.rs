//! Whether the daemon can answer from a plan ([`Readiness`]): when it last
//! had the HPC plan and how old it may get. The actor asks it in `telemetry`.

use super::command::{ApiError, ErrorKind};
use super::seconds::secs;
use crate::config::BackendConfig;
use interstice_core::Time;

/// When the daemon last had the HPC plan, and how old it may get.
#[derive(Debug)]
pub(super) struct Readiness {
    pub(super) backend_name: &'static str,
    pub(super) last_plan_update: Option<Time>,
    /// See [`BackendConfig::plan_stale_after`]; `None`: always ready.
    pub(super) plan_stale_after: Option<Time>,
    /// When a store that could not be written was last tried (real time:
    /// storage comes back on the wall clock, whatever the actor's clock).
    pub(super) last_store_retry: Option<std::time::Instant>,
}

impl Readiness {
    pub(super) fn new(backend: &BackendConfig) -> Readiness {
        Readiness {
            backend_name: crate::backend::name(backend),
            last_plan_update: None,
            plan_stale_after: backend.plan_stale_after().map(Time::from_secs_f64),
            last_store_retry: None,
        }
    }

    /// Age of the plan at `now`, if there is one.
    pub(super) fn plan_age(&self, now: Time) -> Option<Time> {
        self.last_plan_update.map(|at| now - at)
    }

    /// Can the daemon answer from a plan at `now`? Not before the backend's
    /// first successful plan read, nor when the last one is older than
    /// `plan_stale_after`: a prediction from no plan or an old one would be
    /// a guess presented as a promise (503; the plugins' fail mode decides).
    pub(super) fn check(&self, now: Time) -> Result<(), ApiError> {
        let Some(stale_after) = self.plan_stale_after else {
            return Ok(());
        };
        match self.plan_age(now) {
            None => Err(ApiError::new(
                ErrorKind::Unavailable,
                format!(
                    "no plan yet: the {} backend has not read the HPC plan (is the batch system up?)",
                    self.backend_name
                ),
            )),
            Some(age) if age > stale_after => Err(ApiError::new(
                ErrorKind::Unavailable,
                format!(
                    "the HPC plan is stale: last read {:.0} s ago, more than backend.plan_stale_seconds ({:.0} s); \
                     is the batch system up?",
                    secs(age),
                    secs(stale_after)
                ),
            )),
            Some(_) => Ok(()),
        }
    }
}
