//! Who speaks for the batch system. An HPC job reported over the API
//! (`POST /v1/hpc/events`) evicts the cloud jobs on its processors and
//! shrinks every later answer, and an admission recorded or held
//! (`POST /v1/predict` with `admission: true`) counts in the operators'
//! metrics and takes room in the plan: what one caller says there changes
//! what every user's jobs get. So only the batch system may say it: root
//! (slurmd runs the SPANK prolog and epilog as root) and, in Slurm mode, the
//! user slurmctld runs as (`backend.slurm_user`, which runs
//! `job_submit/interstice`).

use super::command::{ApiError, ErrorKind, Owner};
use crate::config::BackendConfig;

/// The callers that speak for the batch system.
#[derive(Debug)]
pub(super) struct BatchSystem {
    /// The uid of `backend.slurm_user` (Slurm mode, when that user exists).
    slurm_uid: Option<u32>,
}

impl BatchSystem {
    /// The batch system's callers under `backend`.
    pub(super) fn new(backend: &BackendConfig) -> BatchSystem {
        BatchSystem {
            slurm_uid: backend.slurm_uid(),
        }
    }

    /// Whether `owner` speaks for the batch system.
    pub(super) fn speaks(&self, owner: Owner) -> bool {
        owner
            .uid
            .is_some_and(|uid| uid == 0 || Some(uid) == self.slurm_uid)
    }

    /// A 403 naming `what` unless `owner` speaks for the batch system.
    pub(super) fn check(&self, owner: Owner, what: &str) -> Result<(), ApiError> {
        if self.speaks(owner) {
            return Ok(());
        }
        Err(ApiError::new(
            ErrorKind::Forbidden,
            format!(
                "{what}: only the batch system may say this (root, or backend.slurm_user in Slurm mode); \
                 its plugins do"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(uid: Option<u32>) -> Owner {
        Owner {
            uid,
            ..Owner::default()
        }
    }

    #[test]
    fn root_and_the_slurm_user_speak_for_the_batch_system() {
        let batch = BatchSystem {
            slurm_uid: Some(64030),
        };
        assert!(batch.speaks(owner(Some(0))));
        assert!(batch.speaks(owner(Some(64030))));
        assert!(!batch.speaks(owner(Some(1000))));
        assert!(
            !batch.speaks(owner(None)),
            "a caller of unknown identity is nobody"
        );
        let refused = BatchSystem { slurm_uid: None }
            .check(owner(Some(1000)), "POST /v1/hpc/events")
            .unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Forbidden);
        assert!(
            refused
                .message
                .starts_with("POST /v1/hpc/events: only the batch system"),
            "{}",
            refused.message
        );
    }
}
