//! The daemon's plan is Slurm's own, and admission holds what it promises,
//! on a real Slurm (harness: `tests/slurm/harness.rs`; runs as root):
//! 1. evictable jobs submitted all at once into a hole that fits two: exactly
//!    two are admitted (the others are refused with a counter-offer), because
//!    each admitted job's slot is held in the daemon's plan until Slurm lists
//!    the job; once Slurm lists them, their own places keep the hole taken;
//! 2. a maintenance reservation (`scontrol create reservation … Flags=MAINT`)
//!    moves the predicted start of a job that would run into it past its
//!    end, leaves a job that ends before it alone, and deleting the
//!    reservation brings the prediction back;
//! 3. a drained node takes no new work: its CPUs leave the daemon's idle
//!    slots and count as unavailable in its partitions, until it resumes.

#[path = "../slurm/harness.rs"]
mod harness;

use std::time::{Duration, Instant};

use harness::{metric, wait_for, Cluster, Daemon, PluginSettings, CLUSTER_CPUS};

/// Processors idle now according to the daemon's plan.
fn idle_now(daemon: &Daemon) -> usize {
    let slots: serde_json::Value =
        serde_json::from_str(&daemon.request("GET", "/v1/slots", None)).expect("slots JSON");
    slots["immediate"].as_array().map_or(0, Vec::len)
}

/// The daemon's predicted start (epoch seconds) for a job of this shape.
fn predicted_start(daemon: &Daemon, procs: u32, walltime: u32) -> f64 {
    let body = format!(r#"{{"procs": {procs}, "walltime": {walltime}, "slo": 1000000}}"#);
    let answer: serde_json::Value =
        serde_json::from_str(&daemon.request("POST", "/v1/predict", Some(&body))).expect("predict JSON");
    answer["predicted_start"].as_f64().expect("a predicted start")
}

fn epoch_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs_f64()
}

#[test]
fn the_daemon_plans_with_slurms_plan_and_holds_its_admissions() {
    let started = Instant::now();
    let cluster = Cluster::start(&PluginSettings::default());
    let daemon = Daemon::start(&cluster, 1);
    a_hole_for_two_evictable_jobs_admits_two_of_six(&cluster, &daemon);
    a_maintenance_reservation_moves_a_prediction(&cluster, &daemon);
    a_drained_node_leaves_the_plan_until_it_resumes(&cluster, &daemon);
    println!(
        "METRIC:slurm_plan_scenarios_duration:{:.1}:seconds",
        started.elapsed().as_secs_f64()
    );
}

/// 1. Two HPC jobs leave a 4-CPU hole in Slurm's plan, in which six
///    evictable jobs are submitted at once: exactly the two that fit are
///    admitted, each held in the daemon's plan until Slurm lists it, then
///    kept in the hole by its own place; the cluster is idle again after.
fn a_hole_for_two_evictable_jobs_admits_two_of_six(cluster: &Cluster, daemon: &Daemon) {
    let total = CLUSTER_CPUS;
    let long = Duration::from_secs(60);
    let busy = (total - 4).to_string();
    let h1 = cluster
        .sbatch(&["-p", "hpc", "-n", &busy, "-t", "3", "--wrap", "sleep 300"])
        .expect("HPC job 1");
    cluster.wait_state(&h1, &["RUNNING"], long);
    let all = total.to_string();
    cluster
        .sbatch(&["-p", "hpc", "-n", &all, "-t", "1", "--wrap", "sleep 5"])
        .expect("HPC job 2, planned at H1's end");
    wait_for(
        "the daemon's plan to show the 4-CPU hole",
        Duration::from_secs(20),
        || (idle_now(daemon) == 4).then_some(()),
    );
    let admitted = six_submitted_at_once_two_admitted(cluster);
    // Slurm lists them: the holds are settled, and the jobs' own places keep the hole taken.
    wait_for("both holds to be settled", Duration::from_secs(30), || {
        let text = daemon.request("GET", "/metrics", None);
        (metric(
            &text,
            "interstice_admission_holds_released_total{result=\"settled\"}",
        ) == 2.0
            && metric(&text, "interstice_admission_holds") == 0.0)
            .then_some(())
    });
    let late = cluster.sbatch(&["--slo=90", "-n", "2", "-t", "1", "--wrap", "sleep 20"]);
    assert!(
        late.is_err(),
        "the hole is still taken, by Slurm's own jobs now: {late:?}"
    );
    for id in &admitted {
        cluster.wait_state(id, &["COMPLETED"], long);
    }
    cluster.cancel_all();
    wait_for("an idle cluster in the daemon's plan", long, || {
        (idle_now(daemon) == total as usize).then_some(())
    });
}

/// Six evictable jobs submitted at once into the 4-CPU hole, each needing 2
/// CPUs for 60 s and to end within 90 s: two fit side by side in the hole, a
/// third would wait for one of them and end late. Exactly two are admitted
/// (in the cloud partition, the marker naming the hold), the others refused
/// with a counter-offer: the admitted ids.
fn six_submitted_at_once_two_admitted(cluster: &Cluster) -> Vec<String> {
    let answers: Vec<Result<String, String>> = std::thread::scope(|scope| {
        let submissions: Vec<_> = (0..6)
            .map(|_| {
                scope.spawn(|| {
                    cluster
                        .sbatch(&["--slo=90", "-n", "2", "-t", "1", "--wrap", "sleep 20"])
                        .map_err(|refused| refused.stderr)
                })
            })
            .collect();
        submissions
            .into_iter()
            .map(|s| s.join().expect("sbatch thread"))
            .collect()
    });
    let admitted: Vec<String> = answers.iter().filter_map(|a| a.clone().ok()).collect();
    let refused: Vec<&String> = answers.iter().filter_map(|a| a.as_ref().err()).collect();
    assert_eq!(
        admitted.len(),
        2,
        "exactly the two that fit are admitted: {answers:#?}"
    );
    for message in &refused {
        assert!(
            message.contains("cannot meet --slo=90") && message.contains("resubmit with --slo="),
            "a refusal with a counter-offer: {message}"
        );
    }
    for id in &admitted {
        let (partition, _, comment) = cluster.job(id).expect("admitted job in squeue");
        assert_eq!(partition, "cloud");
        assert!(comment.contains(" hold="), "the marker names the hold: {comment}");
    }
    admitted
}

/// 2. On an idle cluster a job starts now; a maintenance reservation from
///    now + 60 s for 10 minutes moves the predicted start of a job that
///    would run into it to right after its end, leaves a job that ends
///    before it alone, and deleting the reservation brings the prediction
///    back.
fn a_maintenance_reservation_moves_a_prediction(cluster: &Cluster, daemon: &Daemon) {
    let now = epoch_now();
    assert!(
        predicted_start(daemon, 2, 120) < now + 5.0,
        "an idle cluster starts it now"
    );
    cluster.scontrol(&[
        "create",
        "reservation",
        "ReservationName=maint",
        "StartTime=now+60",
        "Duration=10",
        "Nodes=ALL",
        "Users=root",
        "Flags=MAINT,IGNORE_JOBS",
    ]);
    let window_end = now + 60.0 + 600.0;
    let moved = wait_for(
        "the prediction to move past the window",
        Duration::from_secs(20),
        || {
            let start = predicted_start(daemon, 2, 120);
            (start >= window_end - 2.0).then_some(start)
        },
    );
    assert!(
        moved < window_end + 5.0,
        "right after the window ends: {moved} vs {window_end}"
    );
    assert!(
        predicted_start(daemon, 2, 30) < epoch_now() + 5.0,
        "a job that ends before the window still starts now"
    );
    cluster.scontrol(&["delete", "ReservationName=maint"]);
    wait_for("the prediction to come back", Duration::from_secs(20), || {
        (predicted_start(daemon, 2, 120) < epoch_now() + 5.0).then_some(())
    });
}

/// 3. A drained node (n3) takes no new work: its CPUs leave the daemon's
///    idle slots and count as unavailable in both partitions (whose totals
///    stay the cluster's), until it resumes.
fn a_drained_node_leaves_the_plan_until_it_resumes(cluster: &Cluster, daemon: &Daemon) {
    let total = CLUSTER_CPUS;
    cluster.scontrol(&["update", "NodeName=n3", "State=DRAIN", "Reason=interstice-test"]);
    let per_node = (total / 3) as usize;
    wait_for(
        "n3's CPUs to leave the idle slots",
        Duration::from_secs(20),
        || (idle_now(daemon) == total as usize - per_node).then_some(()),
    );
    let text = daemon.request("GET", "/metrics", None);
    for partition in ["hpc", "cloud"] {
        let series =
            format!("interstice_slurm_partition_cpus{{partition=\"{partition}\",state=\"unavailable\"}}");
        assert_eq!(metric(&text, &series), per_node as f64, "{series}");
        let series = format!("interstice_slurm_partition_cpus{{partition=\"{partition}\",state=\"total\"}}");
        assert_eq!(metric(&text, &series), f64::from(total), "{series}");
    }
    cluster.scontrol(&["update", "NodeName=n3", "State=RESUME"]);
    wait_for("n3 back in the idle slots", Duration::from_secs(20), || {
        (idle_now(daemon) == total as usize).then_some(())
    });
}
