//! The live run of issue 37, short: `scripts/slurm-live.sh` on a real Slurm
//! (its own munged, slurmctld and slurmd, started the way `tests/slurm/harness.rs`
//! starts them), a slice of the KTH trace submitted twice, without and with
//! evictable cloud jobs, then what must hold on what Slurm and the daemon
//! recorded (`live.json`; docs/live.md has the 30-minute run):
//!
//! - no HPC job fails, in either run;
//! - every cloud job the daemon refused was refused with a counter-offer;
//! - an HPC job that preempted a cloud job started within one scheduling
//!   pass after that job ended ([`PREEMPTION_LATENCY_BOUND`]), and no HPC job
//!   started later with cloud jobs than without by more than the preemption
//!   path ([`START_DELAY_BOUND`]);
//! - the CPUs were busier with cloud jobs than without;
//! - the daemon's counters agree with Slurm's records, and no admission hold is left.
//!
//! The scenario is sized so that each check has something to check: 2 nodes
//! of 8 CPUs under KTH's jobs clipped to 16 CPUs (whole-cluster jobs preempt
//! the cloud jobs in the holes before them), a cloud job every 4 s with an SLO
//! of 1.5 × its 3-minute limit (some cannot be promised: refused). About four
//! minutes: two clusters, 75 s of submissions and at most 45 s of drain each.

use serde_json::Value;
use std::process::Command;

/// Slurm's settings of the run (the script's defaults, the harness's template).
const SCHED_INTERVAL: f64 = 1.0;
const BF_INTERVAL: f64 = 1.0;
/// The larger of the two passes' intervals (`f64::max` is not const before Rust 1.85, the MSRV is 1.80).
const PASS: f64 = if SCHED_INTERVAL > BF_INTERVAL {
    SCHED_INTERVAL
} else {
    BF_INTERVAL
};
const KILL_WAIT: f64 = 2.0;
/// Times come from slurmctld's log (milliseconds); a job it has no line for
/// falls back to jobcomp's whole seconds: one second of margin.
const MARGIN: f64 = 1.0;

/// Slurm allocates the HPC job in the very pass that signals the cloud jobs
/// it preempts (Slurm ends them then: their end is that instant); at most one
/// pass apart (`sched_interval` or `bf_interval`, the larger).
const PREEMPTION_LATENCY_BOUND: f64 = PASS + MARGIN;

/// The preemption path of an HPC job that needs a cloud job's CPUs: the next
/// pass notices it (at most `PASS` after it could start) and signals the cloud
/// jobs; Slurm 22.05 allocates the HPC job in that same pass while they
/// complete (`CompleteWait=0`; measured: 61 ms), so `KillWait` (SIGTERM, then
/// SIGKILL) bounds what a slower completion could add. Without cloud jobs the
/// same job may start up to a pass late too: a second `PASS` of difference.
const START_DELAY_BOUND: f64 = KILL_WAIT + 2.0 * PASS + MARGIN;

fn number(value: &Value, path: &[&str]) -> f64 {
    let mut v = value;
    for key in path {
        v = &v[*key];
    }
    v.as_f64()
        .unwrap_or_else(|| panic!("live.json has no number at {path:?}: {v}"))
}

#[test]
fn live_run_on_kth_keeps_hpc_work_whole_and_sells_idle_cpus() {
    let daemon = interstice_tests::artifact("intersticed");
    let binaries = daemon.parent().expect("target/debug").to_path_buf();
    interstice_tests::artifact("libjob_submit_interstice.so");
    let out = interstice_tests::scratch_dir("slurm_live", "short");
    let _ = std::fs::remove_dir(&out);
    let script = interstice_tests::repo_root().join("scripts/slurm-live.sh");
    let status = Command::new("bash")
        .arg(&script)
        .args([
            "--minutes",
            "1.25",
            "--drain-minutes",
            "0.75",
            "--compression",
            "120",
        ])
        .args([
            "--nodes",
            "2",
            "--cpus",
            "8",
            "--cloud-interval",
            "4",
            "--slack",
            "1.5",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--binaries")
        .arg(&binaries)
        .status()
        .expect("run scripts/slurm-live.sh");
    assert!(status.success(), "scripts/slurm-live.sh failed: {status}");
    let text = std::fs::read_to_string(out.join("live.json")).expect("live.json");
    let live: Value = serde_json::from_str(&text).expect("live.json is JSON");
    println!("{text}");

    assert!(number(&live, &["hpc_jobs"]) >= 5.0, "the slice has HPC work");
    assert_eq!(
        number(&live, &["hpc_failures"]),
        0.0,
        "no HPC job fails with cloud jobs"
    );
    assert_eq!(number(&live, &["hpc_failures_without_cloud"]), 0.0, "nor without");

    let refused = number(&live, &["cloud_jobs", "refused"]);
    assert!(
        refused >= 1.0,
        "the scenario refuses some cloud jobs (else the next check checks nothing)"
    );
    assert_eq!(
        number(&live, &["cloud_jobs", "refused_with_counter_offer"]),
        refused,
        "every refused cloud job gets a counter-offer"
    );
    assert!(
        number(&live, &["cloud_jobs", "admitted"]) >= 1.0,
        "cloud jobs were admitted"
    );

    assert!(
        number(&live, &["preemptions"]) >= 1.0,
        "the scenario preempts cloud jobs (else the bounds check nothing)"
    );
    let latency = number(&live, &["preemption_latency", "max"]);
    assert!(
        latency <= PREEMPTION_LATENCY_BOUND,
        "an HPC job started {latency} s after the cloud job it preempted ended (bound {PREEMPTION_LATENCY_BOUND} s)"
    );
    let delay = number(&live, &["hpc_start_delay", "max"]);
    assert!(
        delay <= START_DELAY_BOUND,
        "an HPC job waited {delay} s longer with cloud jobs than without (bound {START_DELAY_BOUND} s)"
    );

    let without = number(&live, &["utilisation", "without_cloud"]);
    let with = number(&live, &["utilisation", "with_cloud"]);
    assert!(
        with > without,
        "utilisation with cloud jobs {with} is not above {without}"
    );

    for check in [
        "admitted",
        "rejected",
        "counter_offers",
        "evictions",
        "completed",
        "holds_left",
    ] {
        assert_eq!(
            live["checks"][check]["equal"],
            Value::Bool(true),
            "the daemon's {check} disagree with Slurm's records: {}",
            live["checks"][check]
        );
    }
    assert!(
        out.join("live.png").exists() && out.join("live.svg").exists(),
        "the figure"
    );
}

/// Bad options stop the script before anything starts: exit status 2 and the reason.
#[test]
fn bad_options_are_refused_with_the_reason() {
    let script = interstice_tests::repo_root().join("scripts/slurm-live.sh");
    let out = interstice_tests::scratch_dir("slurm_live", "bad");
    for (args, reason) in [
        (vec!["--minutes", "0"], "must be a finite number above 0"),
        // Non-finite numbers and node counts no machine runs (it took `nan`,
        // `inf`, and would have started 100,000 slurmd).
        (vec!["--minutes", "nan"], "must be a finite number above 0"),
        (
            vec!["--minutes", "1", "--compression", "inf"],
            "must be a finite number above 0",
        ),
        (vec!["--minutes", "1", "--nodes", "100000"], "is more than 64"),
        (vec!["--minutes", "1", "--cloud-walltime", "90"], "whole minutes"),
        (
            vec!["--minutes", "1", "--trace", "/nonexistent.swf"],
            "no such file",
        ),
        (vec!["--minutes", "1", "--start", "ten days"], "is not a duration"),
    ] {
        let output = Command::new("bash")
            .arg(&script)
            .args(&args)
            .arg("--out")
            .arg(out.join("run"))
            .output()
            .expect("run scripts/slurm-live.sh");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(reason),
            "{args:?} names the reason {reason:?}: {stderr}"
        );
    }
    assert!(!out.join("run").exists(), "nothing was started");
}
