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

/// The daemon's classes in most tests here.
const GOLD_AND_BRONZE: &str = "classes:\n  - {name: gold, slo: 1.0}\n  - {name: bronze, slo: 0.5}\n";

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
        .filter(|(_, id)| cluster.state(id) == "PREEMPTED")
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

/// `sbatch --class` on the real Slurm: the SPANK option reaches
/// `job_submit`, which writes the class into the job's marker; the daemon's
/// Slurm backend accounts each finished cloud job in its class
/// (`interstice_class_*`): a gold job that completes, a bronze job that an
/// HPC job preempts (availability 0, a penalty). A class that is no class
/// name, or one the daemon does not have, is refused at sbatch time.
#[test]
fn sbatch_class_is_accounted_per_class_by_the_daemon() {
    use harness::{metric, Daemon};
    let cluster = Cluster::start(&PluginSettings::default());
    let daemon = Daemon::start_config(&cluster, 1, "  partition_cloud: cloud", GOLD_AND_BRONZE);
    let long = Duration::from_secs(60);
    let wait_metric =
        |series: &str, expected: f64| harness::wait_metric_at_least(&daemon, series, expected, long);

    let gold = cluster
        .sbatch(&["--class=gold", "-n", "2", "-t", "1", "--wrap", "sleep 1"])
        .expect("a gold job");
    let (partition, _, comment) = cluster.job(&gold).expect("in squeue");
    assert_eq!(partition, "cloud", "--class makes a job evictable");
    assert!(comment.ends_with(" class=gold"), "marker: {comment}");
    cluster.wait_state(&gold, &["COMPLETED"], long);
    let text = wait_metric("interstice_class_cloud_jobs_finished_total{class=\"gold\"}", 1.0);
    assert_eq!(
        metric(&text, "interstice_class_availability_count{class=\"gold\"}"),
        1.0
    );
    assert_eq!(
        metric(
            &text,
            "interstice_class_cloud_jobs_finished_total{class=\"bronze\"}"
        ),
        0.0
    );

    let bronze = cluster
        .sbatch(&[
            "--class=bronze",
            "-n",
            "4",
            "-N",
            "1",
            "-t",
            "5",
            "--wrap",
            "sleep 300",
        ])
        .expect("a bronze job");
    cluster.wait_state(&bronze, &["RUNNING"], long);
    // Slurm's times are whole seconds: let the bronze job run some.
    std::thread::sleep(Duration::from_secs(2));
    let hpc = cluster
        .sbatch(&["-p", "hpc", "-n", "12", "-t", "1", "--wrap", "sleep 1"])
        .expect("an HPC job over the whole cluster");
    cluster.wait_state(&bronze, &["PREEMPTED"], long);
    let text = wait_metric(
        "interstice_class_cloud_jobs_finished_total{class=\"bronze\"}",
        1.0,
    );
    assert_eq!(
        metric(&text, "interstice_class_availability_sum{class=\"bronze\"}"),
        0.0,
        "a preempted job's run was thrown away"
    );
    assert!(
        metric(
            &text,
            "interstice_class_penalty_slot_seconds_total{class=\"bronze\"}"
        ) > 0.0,
        "{text}"
    );
    assert_eq!(
        metric(
            &text,
            "interstice_class_availability_deficit_total{class=\"bronze\"}"
        ),
        0.5
    );
    cluster.wait_state(&hpc, &["COMPLETED"], long);

    // The class series pass promtool's lint (base units, names).
    harness::checked_scrape(&daemon);
    let refused = cluster
        .sbatch(&["--class=gold star", "-n", "1", "-t", "1", "--wrap", "true"])
        .expect_err("no class name");
    assert!(refused.stderr.contains("--class must be"), "{}", refused.stderr);
    let unknown = cluster
        .sbatch(&["--class=platinum", "-n", "1", "-t", "1", "--wrap", "true"])
        .expect_err("a class the daemon does not have");
    assert!(
        unknown.stderr.contains("unknown class \"platinum\"") && unknown.stderr.contains("gold, bronze"),
        "{}",
        unknown.stderr
    );
}

/// A cloud job of `class` taking one whole node (4 CPUs) for 5 minutes.
fn submit_one_node_job(cluster: &Cluster, class: &str) -> String {
    cluster
        .sbatch(&[
            &format!("--class={class}"),
            "--slo=3600",
            "-n",
            "4",
            "-N",
            "1",
            "-t",
            "5",
            "--wrap",
            "sleep 300",
        ])
        .unwrap_or_else(|refused| panic!("a {class} job: {}", refused.stderr))
}

/// Wait until the daemon's plan holds `running` running jobs.
fn wait_for_running_in_plan(daemon: &harness::Daemon, running: usize) {
    harness::wait_for(
        "the daemon's plan to hold the running cloud jobs",
        Duration::from_secs(60),
        || {
            let text = daemon.request("GET", "/metrics", None);
            (harness::metric(&text, "interstice_slurm_plan_jobs{state=\"running\"}") == running as f64)
                .then_some(())
        },
    );
}

/// The `priority` baseline through Slurm (docs/qos.md, "On Slurm"): with
/// `class_partitions = gold:cloud_gold`, gold jobs run in `cloud_gold`
/// (`PriorityTier` 3, above `cloud`'s 1, below `hpc`'s 10), and Slurm
/// preempts bronze before gold whatever their order; a pending gold job
/// preempts a running bronze one. The daemon reads both partitions as its
/// area (`partition_cloud: cloud,cloud_gold`).
#[test]
fn class_partitions_make_slurm_preempt_the_least_important_class_first() {
    use harness::Daemon;
    let cluster = Cluster::start(&PluginSettings {
        class_partitions: "gold:cloud_gold",
        ..PluginSettings::default()
    });
    let daemon = Daemon::start_config(
        &cluster,
        1,
        "  partition_cloud: cloud,cloud_gold",
        GOLD_AND_BRONZE,
    );
    let long = Duration::from_secs(60);
    let submit = |class: &str| submit_one_node_job(&cluster, class);
    // Gold first: Slurm's own order among equals would preempt it first.
    let gold = submit("gold");
    cluster.wait_state(&gold, &["RUNNING"], long);
    let bronze: Vec<String> = (0..2).map(|_| submit("bronze")).collect();
    for id in &bronze {
        cluster.wait_state(id, &["RUNNING"], long);
    }
    assert_eq!(cluster.job(&gold).expect("gold").0, "cloud_gold");
    assert_eq!(cluster.job(&bronze[0]).expect("bronze").0, "cloud");
    // The daemon plans all three as cloud work in its area: no idle processor.
    wait_for_running_in_plan(&daemon, 3);

    let hpc = cluster
        .sbatch(&["-p", "hpc", "-n", "4", "-N", "1", "-t", "1", "--wrap", "sleep 1"])
        .expect("an HPC job needing one node");
    cluster.wait_state(&hpc, &["RUNNING", "COMPLETED"], long);
    assert_eq!(cluster.state(&gold), "RUNNING", "gold is preempted after bronze");
    let preempted: Vec<&String> = bronze
        .iter()
        .filter(|id| cluster.state(id) == "PREEMPTED")
        .collect();
    assert_eq!(preempted.len(), 1, "one bronze job makes room: {bronze:?}");
    cluster.wait_state(&hpc, &["COMPLETED"], long);

    // A new bronze job takes the freed node; then a gold job preempts a
    // bronze one (more important, higher tier) to run at once.
    let refill = submit("bronze");
    cluster.wait_state(&refill, &["RUNNING"], long);
    let gold2 = submit("gold");
    cluster.wait_state(&gold2, &["RUNNING"], long);
    assert_eq!(cluster.state(&gold), "RUNNING");
    let running_bronze = bronze
        .iter()
        .chain([&refill])
        .filter(|id| cluster.state(id) == "RUNNING")
        .count();
    assert_eq!(running_bronze, 1, "gold took a bronze job's node");
    cluster.cancel_all();
}

/// The daemon's own victim order on the real Slurm (`backend.eviction:
/// qos-driven`, docs/qos.md "On Slurm"): the cloud partition is not
/// preemptable by Slurm (`PreemptMode=OFF`), so without the daemon an HPC
/// job would wait for a cloud job's time limit. Bronze, silver and gold
/// jobs fill one node each, bronze first (so a most-recent-first rule
/// would take gold); an HPC job needing one node arrives: the daemon
/// cancels the job of largest `Q` (bronze, SLO 50 % and the longest run:
/// the most time to spare) after marking it `evicted_for=<HPC job>`, the
/// HPC job starts, and the bronze job is accounted as evicted, not as
/// cancelled.
#[test]
fn the_daemon_evicts_in_its_policys_order_when_slurm_does_not_preempt() {
    use harness::{metric, Daemon};
    let cluster = Cluster::start(&PluginSettings {
        cloud_preempt_mode: "OFF",
        ..PluginSettings::default()
    });
    let daemon = Daemon::start_config(
        &cluster,
        1,
        "  partition_cloud: cloud\n  eviction: qos-driven",
        "classes:\n  - {name: gold, slo: 1.0}\n  - {name: silver, slo: 0.9}\n  - {name: bronze, slo: 0.5}\n\
         default_class: bronze\n",
    );
    let long = Duration::from_secs(60);
    let submit = |class: &str| submit_one_node_job(&cluster, class);
    let jobs: Vec<(String, &str)> = ["bronze", "silver", "gold"]
        .into_iter()
        .map(|class| {
            let id = submit(class);
            cluster.wait_state(&id, &["RUNNING"], long);
            (id, class)
        })
        .collect();
    wait_for_running_in_plan(&daemon, 3);
    // Slurm's times are whole seconds: let the jobs run some, so Q differs.
    std::thread::sleep(Duration::from_secs(2));

    let hpc = cluster
        .sbatch(&["-p", "hpc", "-n", "4", "-N", "1", "-t", "1", "--wrap", "sleep 3"])
        .expect("an HPC job needing one node");
    cluster.wait_state(&hpc, &["RUNNING", "COMPLETED"], long);
    for (id, class) in &jobs {
        let expected = if *class == "bronze" {
            "CANCELLED"
        } else {
            "RUNNING"
        };
        assert!(
            cluster.state(id).starts_with(expected),
            "{class} job {id}: {} (daemon log:\n{})",
            cluster.state(id),
            harness::tail(&daemon.log, 20)
        );
    }
    let (_, _, comment) = cluster.job(&jobs[0].0).expect("bronze in squeue");
    assert!(
        comment.ends_with(&format!("class=bronze evicted_for={hpc}")),
        "the marker says why: {comment}"
    );
    let text = harness::wait_metric_at_least(
        &daemon,
        "interstice_slurm_cloud_job_outcomes_total{outcome=\"evicted\"}",
        1.0,
        long,
    );
    assert_eq!(
        metric(
            &text,
            "interstice_slurm_daemon_evictions_total{result=\"cancelled\"}"
        ),
        1.0
    );
    assert_eq!(metric(&text, "interstice_evictions_total"), 1.0, "{text}");
    assert_eq!(
        metric(
            &text,
            "interstice_class_cloud_jobs_finished_total{class=\"bronze\"}"
        ),
        1.0
    );
    assert_eq!(
        metric(&text, "interstice_class_availability_sum{class=\"bronze\"}"),
        0.0,
        "an evicted run is thrown away"
    );
    cluster.wait_state(&hpc, &["COMPLETED"], long);
    assert_eq!(cluster.state(&jobs[2].0), "RUNNING", "gold still runs");
    cluster.cancel_all();
}

/// The marker decides a job's class, and with `backend.eviction` who is
/// evicted first: an unprivileged user may not write it (`job_submit` and
/// `job_modify` of `job_submit/interstice` refuse a comment holding
/// `interstice:` from anyone but root and slurmctld's user). Checked as
/// `nobody` on the real Slurm: a bronze job of nobody's cannot be made gold,
/// nor a job submitted with a forged gold marker; root can still write the
/// marker (the daemon marks the jobs it evicts).
#[test]
fn an_unprivileged_user_cannot_rewrite_the_marker() {
    use harness::Daemon;
    let cluster = Cluster::start(&PluginSettings::default());
    let _daemon = Daemon::start_config(&cluster, 1, "  partition_cloud: cloud", GOLD_AND_BRONZE);
    let long = Duration::from_secs(60);
    let output = cluster.run_as_nobody(
        "sbatch",
        &[
            "--parsable",
            "--class=bronze",
            "-n",
            "1",
            "-t",
            "5",
            "-o",
            "/dev/null",
            "--wrap",
            "sleep 300",
        ],
    );
    assert!(
        output.status.success(),
        "sbatch as nobody: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let id = String::from_utf8_lossy(&output.stdout).trim().to_string();
    cluster.wait_state(&id, &["RUNNING"], long);
    let (_, _, marker) = cluster.job(&id).expect("in squeue");
    assert!(marker.ends_with("class=bronze"), "{marker}");
    let forged = format!("Comment={} class=gold", marker.replace("class=bronze", ""));
    let update = ["update", &format!("JobId={id}"), forged.as_str()];
    let refused = cluster.run_as_nobody("scontrol", &update);
    assert!(!refused.status.success(), "nobody rewrote the marker");
    // Slurm 22.05 tells scontrol only "Unspecified error"; the reason is in
    // slurmctld's log.
    assert!(
        cluster
            .slurmctld_log()
            .contains("update refused: a comment may not hold \"interstice:\""),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert_eq!(
        cluster.job(&id).expect("in squeue").2,
        marker,
        "the marker is unchanged"
    );
    // Any other comment is the user's to write.
    let own = cluster.run_as_nobody("scontrol", &["update", &format!("JobId={id}"), "Comment=mine"]);
    assert!(own.status.success(), "{}", String::from_utf8_lossy(&own.stderr));
    // Root writes markers (the daemon's eviction mark).
    let root = cluster.run("scontrol", &update);
    assert!(root.status.success(), "{}", String::from_utf8_lossy(&root.stderr));
    assert!(cluster.job(&id).expect("in squeue").2.ends_with("class=gold"));
    // Nor may a marker be forged at submission, straight into a cloud
    // partition without --slo or --class (a job the plugin does not admit
    // keeps its comment): the daemon would read it as a gold job.
    let forged = cluster.run_as_nobody(
        "sbatch",
        &[
            "--parsable",
            "-p",
            "cloud",
            "--comment=interstice:accepted slo=600 class=gold",
            "-n",
            "1",
            "-t",
            "5",
            "-o",
            "/dev/null",
            "--wrap",
            "sleep 300",
        ],
    );
    assert!(
        !forged.status.success(),
        "nobody submitted a forged marker: job {}",
        String::from_utf8_lossy(&forged.stdout)
    );
    assert!(
        cluster
            .slurmctld_log()
            .contains("submission refused: a comment may not hold \"interstice:\""),
        "{}",
        String::from_utf8_lossy(&forged.stderr)
    );
    cluster.cancel_all();
}
