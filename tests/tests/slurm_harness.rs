//! The real-Slurm harness fails fast: a Slurm daemon that dies is reported
//! at once with its log, not after a readiness timeout. Runs as root with
//! the Slurm packages (`bash scripts/prerequisites.sh`).

#[path = "../slurm/harness.rs"]
mod harness;

use harness::{Cluster, PluginSettings};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// slurmctld refusing a job_submit plugin exits at start; restarting it
/// must fail within seconds with slurmctld's own reason (the readiness
/// wait is 30 s; before, it waited all of it and said only "timed out").
#[test]
fn a_slurmctld_that_dies_is_reported_at_once_with_its_log() {
    let mut cluster = Cluster::start(&PluginSettings::default());
    let started = Instant::now();
    let failure = catch_unwind(AssertUnwindSafe(|| {
        cluster.restart_slurmctld_with(Some("no_such_plugin"));
    }))
    .expect_err("slurmctld cannot start with a missing job_submit plugin");
    let elapsed = started.elapsed();
    let message = failure
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| failure.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(message.contains("slurmctld exited"), "{message}");
    assert!(
        message.contains("no_such_plugin"),
        "the reason is slurmctld's log: {message}"
    );
    assert!(elapsed < Duration::from_secs(15), "took {elapsed:?} to notice");
}
