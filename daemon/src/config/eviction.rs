//! The Slurm backend's own eviction policy as the config gives it
//! (`backend.eviction`, `backend.tenants`), checked over the config's service
//! classes into a [`SlurmEviction`]; the backend builds the policy from it.

use super::backend::{BackendConfig, SLURM_PREEMPTS};
use super::classes::needs_default_class;
use super::model::Config;
use crate::classes::ClassTable;
use interstice_core::qos::{Eviction, Tenant};

/// The Slurm backend's own eviction policy as the config gives it, checked:
/// the policy, the tenants it shares the cluster among and the partitions it
/// reads. `backend::slurm::evict::Policy::configured` builds the policy from
/// it over the daemon's classes.
#[derive(Clone, Debug, PartialEq)]
pub struct SlurmEviction {
    /// `backend.eviction`.
    pub eviction: Eviction,
    /// `backend.tenants` (owner-share only; else empty).
    pub tenants: Vec<Tenant>,
    /// `backend.partition_hpc`.
    pub partition_hpc: String,
    /// `backend.partition_cloud` (a comma-separated list).
    pub partition_cloud: String,
}

impl SlurmEviction {
    /// The policy's name.
    pub fn eviction(&self) -> Eviction {
        self.eviction
    }
}

impl Config {
    /// The Slurm backend's own eviction policy (`backend.eviction`,
    /// `backend.tenants`) over `classes` (the config's [`Config::class_table`]),
    /// checked: `None` when Slurm preempts (or the backend is not Slurm);
    /// each problem names its key.
    pub fn slurm_eviction(&self, classes: Option<&ClassTable>) -> Result<Option<SlurmEviction>, Vec<String>> {
        let BackendConfig::Slurm(slurm) = &self.backend else {
            return Ok(None);
        };
        let mut problems = Vec::new();
        let eviction = if slurm.eviction == SLURM_PREEMPTS {
            None
        } else {
            match slurm.eviction.parse::<Eviction>() {
                Ok(eviction) => Some(eviction),
                Err(err) => {
                    return Err(vec![format!(
                        "backend.eviction: {err}, or \"{SLURM_PREEMPTS}\" (Slurm's own preemption)"
                    )])
                }
            }
        };
        match eviction {
            Some(Eviction::Osep) => problems.push(
                "backend.eviction: osep is simulated by `interstice qos run` only (hosts with speeds, a periodic \
                 decision): use priority, qos-driven or owner-share"
                    .to_string(),
            ),
            Some(Eviction::Priority | Eviction::QosDriven) => {
                problems.extend(needs_default_class(
                    &format!("backend.eviction: {}", slurm.eviction),
                    classes,
                ));
            }
            Some(Eviction::OwnerShare) if slurm.tenants.is_empty() => problems.push(
                "backend.eviction: owner-share needs `backend.tenants:` (Slurm users and the CPUs each is \
                 entitled to)"
                    .to_string(),
            ),
            _ => {}
        }
        if !slurm.tenants.is_empty() && eviction != Some(Eviction::OwnerShare) {
            problems.push(
                "backend.tenants: only backend.eviction: owner-share reads them: remove them, or set it"
                    .to_string(),
            );
        }
        if slurm.tenants.iter().any(|t| t.power.is_some()) {
            problems.push(
                "backend.tenants: power: only osep (`interstice qos run`) reads a tenant's power: remove it"
                    .to_string(),
            );
        }
        if slurm.tenants.iter().any(|t| t.weight.is_some()) {
            problems.push(
                "backend.tenants: weight: only a replay draws tenants by weight; a Slurm job's tenant is its \
                 user: remove it"
                    .to_string(),
            );
        }
        let tenants = match interstice_swf::qos::tenants(&slurm.tenants) {
            Ok(tenants) => tenants,
            Err((key, message)) => {
                problems.push(format!("backend.{key}: {message}"));
                Vec::new()
            }
        };
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(eviction.map(|eviction| SlurmEviction {
            eviction,
            tenants,
            partition_hpc: slurm.partition_hpc.clone(),
            partition_cloud: slurm.partition_cloud.clone(),
        }))
    }
}
