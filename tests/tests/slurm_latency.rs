//! `job_submit/interstice` on and off, on a real Slurm: 100 evictable
//! submissions each way (held, so none runs). With the plugin they are
//! admitted by the daemon and routed to `cloud`; without it they stay in
//! `hpc`. Prints the median `sbatch` latency of both and the difference as
//! `METRIC:` lines (a measurement, not a timing assertion).

#[path = "../slurm/harness.rs"]
mod harness;

use std::time::{Duration, Instant};

use harness::{Cluster, Daemon, PluginSettings};

const SUBMISSIONS: usize = 100;

fn submit_batch(cluster: &Cluster) -> (Vec<f64>, Vec<String>) {
    let mut latencies = Vec::with_capacity(SUBMISSIONS);
    let mut ids = Vec::with_capacity(SUBMISSIONS);
    for _ in 0..SUBMISSIONS {
        let started = Instant::now();
        let id = cluster
            .sbatch(&["--hold", "--slo=3600", "-n", "1", "-t", "1", "--wrap", "true"])
            .unwrap_or_else(|err| panic!("sbatch failed: {err}"));
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        ids.push(id);
    }
    (latencies, ids)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len() % 2 == 0 {
        (values[middle - 1] + values[middle]) / 2.0
    } else {
        values[middle]
    }
}

fn partition_count(cluster: &Cluster, partition: &str) -> usize {
    let output = cluster.run("squeue", &["-h", "-t", "PD", "-p", partition, "-o", "%i"]);
    String::from_utf8_lossy(&output.stdout).split_whitespace().count()
}

#[test]
fn sbatch_latency_with_and_without_the_job_submit_plugin() {
    let mut cluster = Cluster::start(&PluginSettings::default());
    let daemon = Daemon::start(&cluster, 1);
    // Warm up (first connections, page cache).
    for _ in 0..3 {
        cluster
            .sbatch(&["--hold", "--slo=3600", "-n", "1", "-t", "1", "--wrap", "true"])
            .expect("warm-up");
    }
    cluster.cancel_all();
    harness::wait_for(
        "the warm-up jobs to leave the queue",
        Duration::from_secs(30),
        || (partition_count(&cluster, "cloud") == 0).then_some(()),
    );

    let (mut on, _) = submit_batch(&cluster);
    assert_eq!(
        partition_count(&cluster, "cloud"),
        SUBMISSIONS,
        "with the plugin every job is routed to cloud"
    );
    let log = cluster.slurmctld_log();
    assert!(
        !log.contains("accepted unpredicted"),
        "the daemon answered every admission in time"
    );
    cluster.cancel_all();

    cluster.restart_slurmctld(false);
    let (mut off, _) = submit_batch(&cluster);
    assert_eq!(
        partition_count(&cluster, "hpc"),
        SUBMISSIONS,
        "without the plugin the jobs stay in hpc"
    );
    assert_eq!(partition_count(&cluster, "cloud"), 0);
    cluster.cancel_all();
    drop(daemon);

    let (median_on, median_off) = (median(&mut on), median(&mut off));
    println!("METRIC:sbatch_median_latency_plugin_on:{median_on:.2}:milliseconds");
    println!("METRIC:sbatch_median_latency_plugin_off:{median_off:.2}:milliseconds");
    println!(
        "METRIC:sbatch_added_latency_median:{:.2}:milliseconds",
        median_on - median_off
    );
}
