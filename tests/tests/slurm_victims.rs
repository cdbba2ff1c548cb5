//! Which running cloud job Slurm preempts, on the real Slurm 22.05 of the
//! harness (`preempt/partition_prio`, `PreemptMode=CANCEL`): a fact the
//! daemon's design rests on, checked so that a Slurm that behaves otherwise
//! is noticed.
//!
//! `preempt/partition_prio` orders its candidates by partition
//! `PriorityTier`, then by node count (`_gen_job_prio`), never by job
//! priority: setting a running cloud job's priority (`scontrol update
//! Priority=`, which Slurm accepts) does not change which one is preempted.
//! So the daemon cannot impose a victim order (docs/qos.md's `Q` order)
//! through job priorities; a class's importance can only be told to Slurm
//! as the `PriorityTier` of a partition (docs/qos.md, "On Slurm").

#[path = "../slurm/harness.rs"]
mod harness;

use harness::{Cluster, PluginSettings};
use std::time::Duration;

/// Three cloud jobs, one per node; each gets a priority; an HPC job needing
/// one node preempts one of them. Returns the preempted job's position (0
/// = submitted first) and the priorities Slurm reported before preempting.
fn preempted_position(cluster: &Cluster, priorities: [u32; 3]) -> (usize, Vec<u32>) {
    let long = Duration::from_secs(60);
    let mut ids = Vec::new();
    for _ in 0..3 {
        let id = cluster
            .sbatch(&["-p", "cloud", "-n", "4", "-t", "5", "--wrap", "sleep 300"])
            .expect("cloud job");
        cluster.wait_state(&id, &["RUNNING"], long);
        ids.push(id);
    }
    for (id, priority) in ids.iter().zip(priorities) {
        let output = cluster.run(
            "scontrol",
            &["update", &format!("JobId={id}"), &format!("Priority={priority}")],
        );
        assert!(
            output.status.success(),
            "scontrol update Priority on running job {id}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let reported: Vec<u32> = ids
        .iter()
        .map(|id| {
            let output = cluster.run("squeue", &["-h", "-j", id, "-o", "%Q"]);
            String::from_utf8_lossy(&output.stdout)
                .trim()
                .parse()
                .expect("a priority")
        })
        .collect();
    let hpc = cluster
        .sbatch(&["-p", "hpc", "-n", "4", "-N", "1", "-t", "1", "--wrap", "sleep 1"])
        .expect("HPC job");
    cluster.wait_state(&hpc, &["RUNNING", "COMPLETED"], long);
    let preempted: Vec<usize> = ids
        .iter()
        .enumerate()
        .filter(|(_, id)| cluster.job(id).map(|(_, state, _)| state) == Some("PREEMPTED".into()))
        .map(|(position, _)| position)
        .collect();
    assert_eq!(
        preempted.len(),
        1,
        "one node's cloud job makes room: {preempted:?}"
    );
    cluster.cancel_all();
    for id in &ids {
        cluster.wait_state(id, &["PREEMPTED", "CANCELLED"], long);
    }
    cluster.wait_state(&hpc, &["COMPLETED", "CANCELLED"], long);
    (preempted[0], reported)
}

#[test]
fn partition_prio_preemption_ignores_job_priority() {
    let cluster = Cluster::start(&PluginSettings::default());
    // Lowest priority on the first job, then on the last: a Slurm that
    // preempted by job priority would pick position 0, then position 2.
    let (first, reported) = preempted_position(&cluster, [100, 300, 200]);
    assert_eq!(
        reported,
        [100, 300, 200],
        "Slurm took the running jobs' new priorities"
    );
    let (second, reported) = preempted_position(&cluster, [300, 200, 100]);
    assert_eq!(reported, [300, 200, 100]);
    assert_eq!(
        first, second,
        "Slurm's preemptee followed job priorities; the daemon could order victims through them \
         (docs/qos.md, On Slurm)"
    );
}
