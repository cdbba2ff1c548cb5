//! A cloud job's service class and tenant as a workload carries them.
//!
//! In a Batsim workload JSON a cloud job may name its service class and its
//! tenant (`"class": "gold"`, `"tenant": "physics"`), two Interstice
//! extensions Batsim passes through to the scheduler like `kind` and `slo`.
//! `interstice swf inject --qos FILE` writes them (drawn by the file's
//! weights, [`crate::qos::ClassDraw`]); `interstice replay --eviction/--qos`
//! schedules each labelled job in its class and tenant, which the class file
//! must define. The engine never sees labels: a workload keeps them beside
//! its jobs, by job id ([`JobLabels`]).

use interstice_core::JobId;
use std::collections::BTreeMap;

/// The longest class or tenant name a workload may give (as the daemon's
/// class names).
pub const MAX_NAME: usize = 64;

/// A cloud job's class and tenant, each when the workload gives it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobLabel {
    /// The service class, by name.
    pub class: Option<String>,
    /// The tenant (owner), by name.
    pub tenant: Option<String>,
}

impl JobLabel {
    /// Neither class nor tenant given.
    pub fn is_empty(&self) -> bool {
        self.class.is_none() && self.tenant.is_none()
    }
}

/// The labels of a workload's jobs, by job id (unlabelled jobs absent).
pub type JobLabels = BTreeMap<JobId, JobLabel>;

/// A class or tenant name as a workload writes it: 1–[`MAX_NAME`]
/// characters, none of them a control character (each is written as one
/// CSV cell and one JSON string, and compared as written with the class
/// file's names). Returns what it must hold when it is not one.
pub fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() || name.chars().count() > MAX_NAME || name.chars().any(char::is_control) {
        // MAX_NAME, spelled out (tested).
        Err("a name of 1-64 characters without control characters")
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_short_printable_and_not_empty() {
        assert!(check_name("gold").is_ok());
        assert!(check_name("team physics.2").is_ok());
        assert!(check_name("").is_err());
        assert!(check_name("a\nb").is_err());
        assert!(check_name(&"x".repeat(65)).is_err());
        assert!(check_name(&"é".repeat(64)).is_ok());
        assert!(check_name("").unwrap_err().contains(&format!("1-{MAX_NAME}")));
    }
}
