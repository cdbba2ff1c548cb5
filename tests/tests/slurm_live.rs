//! The live run of issue 37, short: `scripts/slurm-live.sh` on a real Slurm
//! (its own munged, slurmctld and slurmd, started the way `tests/slurm/harness.rs`
//! starts them), a slice of the KTH trace submitted twice, without and with
//! evictable cloud jobs, then what must hold on what Slurm and the daemon
//! recorded (`live.json`; docs/live.md has the 30-minute run):
//!
//! - no HPC job fails, in either run;
//! - every cloud job the daemon refused was refused with a counter-offer;
//! - an HPC job that preempted a cloud job started within the preemption
//!   path's bound after that job ended, and no HPC job waited longer with
//!   cloud jobs than without by more than the bound per preemption it could
//!   have waited behind ([`PREEMPTION_BOUND`]);
//! - the CPUs were busier with cloud jobs than without;
//! - the daemon's counters agree with Slurm's records.

use serde_json::Value;
use std::process::Command;

/// Slurm's settings of the run (the script's defaults, the harness's template).
const SCHED_INTERVAL: f64 = 1.0;
const BF_INTERVAL: f64 = 1.0;
const KILL_WAIT: f64 = 2.0;

/// The preemption path, seconds: once the cloud job Slurm preempts has ended,
/// the HPC job starts at the next scheduling pass (`sched_interval`, or the
/// backfill pass `bf_interval`, whichever comes first: at most the larger),
/// plus jobcomp's whole-second resolution on both ends (2 s). The cloud job's
/// own end after the preemption is at most `KillWait` (SIGTERM, then SIGKILL).
const PREEMPTION_BOUND: f64 = SCHED_INTERVAL.max(BF_INTERVAL) + 2.0;

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
        .args(["--minutes", "1.5", "--drain-minutes", "1.5", "--compression", "120"])
        .args(["--nodes", "4", "--cpus", "25", "--cloud-interval", "5"])
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
    assert_eq!(number(&live, &["hpc_failures"]), 0.0, "no HPC job fails with cloud jobs");
    assert_eq!(number(&live, &["hpc_failures_without_cloud"]), 0.0, "nor without");

    let refused = number(&live, &["cloud_jobs", "refused"]);
    assert_eq!(
        number(&live, &["cloud_jobs", "refused_with_counter_offer"]),
        refused,
        "every refused cloud job gets a counter-offer"
    );
    assert!(number(&live, &["cloud_jobs", "admitted"]) >= 1.0, "cloud jobs were admitted");

    if number(&live, &["preemptions"]) > 0.0 {
        let latency = number(&live, &["preemption_latency", "max"]);
        assert!(
            latency <= PREEMPTION_BOUND,
            "an HPC job started {latency} s after the cloud job it preempted ended (bound {PREEMPTION_BOUND} s)"
        );
    }
    let preemptions = number(&live, &["preemptions"]);
    let delay = number(&live, &["hpc_start_delay", "max"]);
    let bound = (preemptions + 1.0) * (PREEMPTION_BOUND + KILL_WAIT);
    assert!(
        delay <= bound,
        "an HPC job waited {delay} s longer with cloud jobs (bound {bound} s: {preemptions} preemptions)"
    );

    let without = number(&live, &["utilisation", "without_cloud"]);
    let with = number(&live, &["utilisation", "with_cloud"]);
    assert!(with > without, "utilisation with cloud jobs {with} is not above {without}");

    for check in ["admitted", "rejected", "counter_offers", "evictions"] {
        assert_eq!(
            live["checks"][check]["equal"],
            Value::Bool(true),
            "the daemon's {check} disagree with Slurm's records: {}",
            live["checks"][check]
        );
    }
    assert!(out.join("live.png").exists() && out.join("live.svg").exists(), "the figure");
}
