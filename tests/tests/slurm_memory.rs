//! Memory as a second resource of the daemon's own eviction, on the real
//! Slurm 22.05 of the harness with `SelectTypeParameters=CR_Core_Memory`
//! (docs/qos.md, "On Slurm"): Slurm starts a job on a node only where its
//! CPUs and its memory are free, so the daemon must evict the cloud job
//! that holds the memory an HPC job needs, not merely one holding CPUs.

#[path = "../slurm/harness.rs"]
mod harness;

use harness::{Cluster, Daemon, PluginSettings, CPUS_PER_NODE};
use std::time::{Duration, Instant};

/// Each node's `RealMemory`, MB.
const NODE_MEMORY_MB: u32 = 4000;

/// The daemon's `backend.bf_interval_seconds` in the harness.
const DAEMON_READ_SECONDS: u64 = 1;
/// `sched_interval` and `bf_interval` of `tests/slurm/slurm.conf.in`.
const SLURM_SCHEDULE_SECONDS: u64 = 1;
/// `KillWait` of `tests/slurm/slurm.conf.in`: a cancelled job's processes
/// are killed at most this long after SIGTERM.
const KILL_WAIT_SECONDS: u64 = 2;
/// Room for the commands themselves (squeue, scontrol, scancel, sbatch)
/// on a loaded two-core machine.
const COMMAND_SLACK_SECONDS: u64 = 10;

/// The longest the HPC job may wait once the daemon sees it: two reads of
/// the daemon (the one that sees it pending, one spare), the victim's
/// KillWait, two of Slurm's scheduling passes, and the slack.
fn start_bound() -> Duration {
    Duration::from_secs(
        2 * DAEMON_READ_SECONDS + KILL_WAIT_SECONDS + 2 * SLURM_SCHEDULE_SECONDS + COMMAND_SLACK_SECONDS,
    )
}

/// A cloud job of `class` on node n1: `cpus` CPUs and `memory_mb` MB for 5 minutes.
fn cloud_job(cluster: &Cluster, class: &str, cpus: u32, memory_mb: u32) -> String {
    cluster
        .sbatch(&[
            &format!("--class={class}"),
            "--slo=3600",
            "-n",
            &cpus.to_string(),
            "-N",
            "1",
            "-w",
            "n1",
            &format!("--mem={memory_mb}"),
            "-t",
            "5",
            "--wrap",
            "sleep 300",
        ])
        .unwrap_or_else(|refused| panic!("a {class} job: {}", refused.stderr))
}

/// n2 and n3 are full of HPC work; on n1 (4 CPUs, 4000 MB) a gold cloud
/// job holds 1 CPU and 3000 MB, a bronze one 2 CPUs and 500 MB: 1 CPU and
/// 500 MB are free. An HPC job asks 2 CPUs and 2000 MB on one node. Under
/// `priority` bronze goes first, and its 2 CPUs would do; but 1000 MB
/// would then be free, not 2000, and Slurm would not start the HPC job.
/// Counting memory, the daemon takes bronze, then gold (4 CPUs, 4000 MB
/// free: it fits), and gives bronze back (without it 2 CPUs and 3500 MB
/// are free): it cancels gold only, and the HPC job starts within
/// [`start_bound`]. Counting CPUs only, it cancelled bronze and the HPC
/// job waited for gold's time limit (checked: this test then fails).
#[test]
fn the_daemon_evicts_the_cloud_job_holding_the_memory_an_hpc_job_needs() {
    let cluster = Cluster::start(&PluginSettings {
        cloud_preempt_mode: "OFF",
        node_memory_mb: Some(NODE_MEMORY_MB),
        ..PluginSettings::default()
    });
    let daemon = Daemon::start_config(
        &cluster,
        1,
        "  partition_cloud: cloud\n  eviction: priority",
        "classes:\n  - {name: gold, slo: 1.0}\n  - {name: bronze, slo: 0.5}\ndefault_class: bronze\n",
    );
    let long = Duration::from_secs(60);
    let config = String::from_utf8_lossy(&cluster.run("scontrol", &["show", "config"]).stdout).to_string();
    assert!(config.contains("CR_CORE_MEMORY"), "Slurm counts memory: {config}");
    harness::wait_for("the daemon to learn that Slurm counts memory", long, || {
        daemon
            .log_text()
            .contains("SelectTypeParameters counts memory")
            .then_some(())
    });
    let blocker = cluster
        .sbatch(&[
            "-p",
            "hpc",
            "-N",
            "2",
            "-n",
            &(2 * CPUS_PER_NODE).to_string(),
            "-w",
            "n[2-3]",
            "--mem=500",
            "-t",
            "5",
            "--wrap",
            "sleep 300",
        ])
        .expect("HPC work on n2 and n3");
    cluster.wait_state(&blocker, &["RUNNING"], long);
    let gold = cloud_job(&cluster, "gold", 1, 3000);
    cluster.wait_state(&gold, &["RUNNING"], long);
    let bronze = cloud_job(&cluster, "bronze", 2, 500);
    cluster.wait_state(&bronze, &["RUNNING"], long);
    harness::wait_for("the daemon's plan to hold the three running jobs", long, || {
        let text = daemon.request("GET", "/metrics", None);
        (harness::metric(&text, "interstice_slurm_plan_jobs{state=\"running\"}") == 3.0).then_some(())
    });

    let submitted = Instant::now();
    let hpc = cluster
        .sbatch(&[
            "-p",
            "hpc",
            "-N",
            "1",
            "-n",
            "2",
            "--mem=2000",
            "-t",
            "1",
            "--wrap",
            "sleep 3",
        ])
        .expect("an HPC job needing 2 CPUs and 2000 MB");
    let bound = start_bound();
    let state = cluster.wait_state(&hpc, &["RUNNING", "COMPLETED"], bound);
    let waited = submitted.elapsed();
    assert!(
        cluster.state(&gold).starts_with("CANCELLED"),
        "gold holds the memory: {} (daemon log:\n{})",
        cluster.state(&gold),
        harness::tail(&daemon.log, 20)
    );
    assert_eq!(
        cluster.state(&bronze),
        "RUNNING",
        "bronze's CPUs alone do not help: given back"
    );
    let (_, _, comment) = cluster.job(&gold).expect("gold in squeue");
    assert!(
        comment.ends_with(&format!("class=gold evicted_for={hpc}")),
        "the marker says why: {comment}"
    );
    eprintln!("the HPC job was {state} {waited:?} after its submission (bound {bound:?})");
    assert!(
        waited <= bound,
        "the HPC job started ({state}) {waited:?} after its submission, bound {bound:?}"
    );
    let text = harness::wait_metric_at_least(
        &daemon,
        "interstice_slurm_daemon_evictions_total{result=\"cancelled\"}",
        1.0,
        long,
    );
    assert_eq!(
        harness::metric(
            &text,
            "interstice_slurm_daemon_evictions_total{result=\"cancelled\"}"
        ),
        1.0,
        "one eviction"
    );
    cluster.cancel_all();
}
