//! Interstice on a real Slurm (three nodes of 4 CPUs, 12 in all, partitions
//! `hpc` and `cloud` with partition-priority preemption), with both plugins
//! loaded by the real slurmctld/sbatch/slurmd and one `intersticed` reading
//! the whole cluster's plan with its `slurm` backend (an engine of 12
//! processors). Slurm places the jobs on the nodes. Jobs are short sleeps.
//! Runs as root (CI does); fails, not skips, when Slurm is missing. Harness:
//! `tests/slurm/harness.rs`. The SPANK prolog's reports go to this daemon,
//! which counts them (Slurm's plan says where jobs are); one daemon per
//! node acting on them: `slurm_multinode.rs`.
//!
//! One test function runs the scenarios in order, on one cluster:
//! 1. a backfill hole: an evictable job whose `--slo` fits is accepted, routed
//!    to `cloud`, runs and is counted as met;
//! 2. an SLO that cannot be met is rejected at sbatch time with the
//!    counter-offer; resubmitting with the offered SLO is accepted;
//! 3. an HPC job over all three nodes preempts a running cloud job; the
//!    daemon records the eviction and the violation, and the SPANK prolog of
//!    each node reports the HPC start;
//! 4. with the daemon stopped, submissions go through (fail-open) within the
//!    latency bound and are counted;
//! 5. `/metrics` shows the outcomes of 1–4 with exact counts: admissions,
//!    rejections, counter-offers, met, evicted, SLO violations (evictions
//!    violate in this config), the prediction confusion counts, unpredicted
//!    admissions and HPC events; each live scrape passes `promtool check metrics`.
//!    Outcomes are followed on `/metrics` throughout; the daemon log is read only
//!    for what metrics cannot carry (which job id had which outcome).

#[path = "../slurm/harness.rs"]
mod harness;

use std::time::{Duration, Instant};

use harness::{
    checked_scrape, metric, wait_for, Cluster, Daemon, HttpError, PluginSettings, SpankReports, CLUSTER_CPUS,
};

/// The counter-offer in a rejection message: "... resubmit with --slo=410".
fn offered_slo(message: &str) -> u64 {
    let tail = message
        .split("resubmit with --slo=")
        .nth(1)
        .unwrap_or_else(|| panic!("no counter-offer in {message:?}"));
    tail.chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .expect("offered SLO is a number")
}

/// Processors idle now according to the daemon's plan.
fn idle_now(daemon: &Daemon) -> usize {
    let slots: serde_json::Value =
        serde_json::from_str(&daemon.request("GET", "/v1/slots", None)).expect("slots JSON");
    slots["immediate"].as_array().map_or(0, Vec::len)
}

/// Whether the daemon's log reports `outcome` for cloud job `id`.
fn logged_outcome(daemon: &Daemon, id: &str, outcome: &str) -> bool {
    let needle = format!("slurm: cloud job {id} outcome {outcome}");
    daemon.log_text().lines().any(|line| line.ends_with(&needle))
}

/// Waits until `series` on the daemon's `/metrics` reaches `expected`, then
/// checks it is exactly that (every scenario step adds a known count).
fn wait_metric(daemon: &Daemon, series: &str, expected: f64) {
    let text = harness::wait_metric_at_least(daemon, series, expected, Duration::from_secs(20));
    assert_eq!(metric(&text, series), expected, "{series} in\n{text}");
}

/// Asserts `series` is exactly `expected` in `text`.
fn assert_metric(text: &str, series: &str, expected: f64) {
    assert_eq!(metric(text, series), expected, "{series} in\n{text}");
}

const MET: &str = "interstice_slurm_cloud_job_outcomes_total{outcome=\"met\"}";
const EVICTED: &str = "interstice_slurm_cloud_job_outcomes_total{outcome=\"evicted\"}";
const VIOLATED: &str = "interstice_slurm_cloud_job_outcomes_total{outcome=\"violated\"}";
const FAILED: &str = "interstice_slurm_cloud_job_outcomes_total{outcome=\"failed\"}";
const ADMITTED: &str = "interstice_admissions_total{decision=\"admitted\"}";
const REJECTED: &str = "interstice_admissions_total{decision=\"rejected\"}";
const TN: &str = "interstice_prediction_outcomes_total{outcome=\"tn\"}";
const FN: &str = "interstice_prediction_outcomes_total{outcome=\"fn\"}";
const TP: &str = "interstice_prediction_outcomes_total{outcome=\"tp\"}";
const FP: &str = "interstice_prediction_outcomes_total{outcome=\"fp\"}";

#[test]
fn interstice_on_a_real_slurm() {
    let started = Instant::now();
    let mut cluster = Cluster::start(&PluginSettings {
        spank_reports: SpankReports::Central,
        ..PluginSettings::default()
    });
    let mut daemon = Daemon::start(&cluster, 1);
    let h2 = a_hole_is_filled_by_an_evictable_job(&cluster, &daemon);
    let c2 = an_slo_out_of_reach_gets_a_counter_offer(&cluster);
    the_first_decisions_are_on_metrics(&daemon);
    // H1, H2 and C2 drain in Slurm's order: C2 waits for H2 (higher partition tier).
    cluster.wait_state(&h2, &["COMPLETED"], LONG);
    cluster.wait_state(&c2, &["COMPLETED"], LONG);
    wait_metric(&daemon, MET, 2.0);
    an_hpc_job_preempts_a_running_cloud_job(&cluster, &daemon);
    daemon.stop();
    let daemon2 = with_the_daemon_down_sbatch_fails_open(&cluster);
    a_stale_plan_makes_the_daemon_unready(&mut cluster, &daemon2);
    drop(daemon2);
    drop(daemon);
    drop(cluster);
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(600),
        "the Slurm scenarios took {took:?}"
    );
    println!(
        "METRIC:slurm_scenarios_duration:{:.1}:seconds",
        took.as_secs_f64()
    );
}

/// How long a job may take to reach a state it is sure to reach.
const LONG: Duration = Duration::from_secs(90);

/// Scenario 1: H1 leaves a 2-processor hole before H2's reservation; an
/// evictable job whose `--slo` fits is accepted, routed to `cloud`, runs in
/// the hole while H1 runs, and is counted as met. Returns H2.
fn a_hole_is_filled_by_an_evictable_job(cluster: &Cluster, daemon: &Daemon) -> String {
    // H1 takes 10 of the 12 CPUs (over the three nodes, as Slurm places it).
    let h1 = cluster
        .sbatch(&["-p", "hpc", "-n", "10", "-t", "2", "--wrap", "sleep 20"])
        .expect("HPC job 1");
    cluster.wait_state(&h1, &["RUNNING"], LONG);
    let h2 = cluster
        .sbatch(&["-p", "hpc", "-n", "12", "-t", "1", "--wrap", "sleep 4"])
        .expect("HPC job 2");
    // The daemon's plan: 10 of 12 processors busy until H1's limit, then H2 on all 12.
    wait_for(
        "the daemon's plan to show the 2-processor hole",
        Duration::from_secs(20),
        || (idle_now(daemon) == 2).then_some(()),
    );
    let c1 = cluster
        .sbatch(&["--slo=100", "-n", "2", "-t", "1", "--wrap", "sleep 3"])
        .expect("evictable job fits");
    let (partition, _, comment) = cluster.job(&c1).expect("C1 in squeue");
    assert_eq!(
        partition, "cloud",
        "accepted evictable job is routed to the cloud partition"
    );
    assert!(
        comment.starts_with("interstice:accepted slo=100"),
        "C1 comment {comment:?}"
    );
    assert!(
        comment.contains(" predicted_violation=0 violation_probability=0.000 verdicts=")
            && comment.contains(" hold="),
        "C1's marker carries the engine's verdict, its probability, every predictor's verdict and the \
         daemon's hold: {comment:?}"
    );
    // It runs in the hole, before H1 ends, and completes: met.
    cluster.wait_state(&c1, &["RUNNING", "COMPLETED"], Duration::from_secs(15));
    assert_eq!(
        cluster.job(&h1).expect("H1").1,
        "RUNNING",
        "C1 started in the hole while H1 runs"
    );
    cluster.wait_state(&c1, &["COMPLETED"], Duration::from_secs(30));
    wait_metric(daemon, MET, 1.0);

    h2
}

/// Scenario 2: an SLO that cannot be met is rejected at sbatch time with the
/// counter-offer; resubmitting with the offered SLO is accepted. Returns
/// that job (C2).
fn an_slo_out_of_reach_gets_a_counter_offer(cluster: &Cluster) -> String {
    let rejection = cluster
        .sbatch(&["--slo=30", "-n", "4", "-t", "1", "--wrap", "sleep 2"])
        .expect_err("4 processors for 60 s cannot finish within 30 s: only 2 are idle until H1's limit")
        .stderr;
    assert!(
        rejection
            .contains("cannot meet --slo=30 on the current backfill plan; earliest predicted response time"),
        "rejection message: {rejection}"
    );
    println!("sbatch said: {}", rejection.trim());
    let offer = offered_slo(&rejection);
    assert!(offer > 60, "the counter-offer {offer} s must exceed the walltime");
    let slo = format!("--slo={offer}");
    let c2 = cluster
        .sbatch(&[&slo, "-n", "4", "-t", "1", "--wrap", "sleep 2"])
        .expect("resubmission with the offer");
    let (partition, _, comment) = cluster.job(&c2).expect("C2 in squeue");
    assert_eq!(partition, "cloud");
    assert!(
        comment.starts_with(&format!("interstice:accepted slo={offer}")),
        "C2 comment {comment:?}"
    );

    c2
}

/// Scenario 5, first part: `/metrics` of the daemon that decided scenarios 1
/// and 2.
fn the_first_decisions_are_on_metrics(daemon: &Daemon) {
    let metrics = checked_scrape(daemon);
    assert_metric(&metrics, ADMITTED, 2.0);
    assert_metric(&metrics, REJECTED, 1.0);
    assert_metric(&metrics, "interstice_slo_counteroffers_total", 1.0);
    assert_metric(&metrics, TN, 1.0);
    // Every admission's probability, and C1 (met) scored by every predictor its marker names.
    assert_metric(&metrics, "interstice_predicted_violation_probability_count", 3.0);
    for predictor in ["exact", "thesis", "learned"] {
        let series =
            format!("interstice_predictor_outcomes_total{{outcome=\"tn\",predictor=\"{predictor}\"}}");
        assert_metric(&metrics, &series, 1.0);
    }
}

/// Scenario 3: an HPC job over all three nodes preempts a running cloud job;
/// the daemon records the eviction and the violation, each node's SPANK
/// prolog reports the HPC start, and (scenario 5, second part) `/metrics`
/// shows everything this daemon saw.
fn an_hpc_job_preempts_a_running_cloud_job(cluster: &Cluster, daemon: &Daemon) {
    let c3 = cluster
        .sbatch(&["--slo=300", "-n", "4", "-t", "2", "--wrap", "sleep 60"])
        .expect("C3 accepted");
    cluster.wait_state(&c3, &["RUNNING"], Duration::from_secs(30));
    // Let C3 do some work first: Slurm's times have one-second resolution, so
    // a preemption in the second C3 started would leave no lost work to count.
    std::thread::sleep(Duration::from_secs(2));
    let h3 = cluster
        .sbatch(&["-p", "hpc", "-n", "12", "-t", "1", "--wrap", "sleep 2"])
        .expect("HPC job 3");
    cluster.wait_state(&c3, &["PREEMPTED"], LONG);
    cluster.wait_state(&h3, &["RUNNING", "COMPLETED"], Duration::from_secs(30));
    wait_metric(daemon, EVICTED, 1.0);
    assert!(
        logged_outcome(daemon, &c3, "evicted"),
        "the evicted job is C3 ({c3}):\n{}",
        daemon.log_text()
    );
    // Each node's SPANK prolog told the daemon which HPC jobs took its
    // processors: H1 (10 CPUs), H2 and H3 (12) each span the three nodes.
    wait_metric(daemon, "interstice_hpc_events_total{type=\"started\"}", 9.0);
    // --- 5 (second part). Everything the first daemon saw ---------------------------------------
    let metrics = checked_scrape(daemon);
    assert_metric(&metrics, ADMITTED, 3.0);
    assert_metric(&metrics, REJECTED, 1.0);
    assert_metric(&metrics, "interstice_slo_counteroffers_total", 1.0);
    assert_metric(&metrics, MET, 2.0);
    assert_metric(&metrics, EVICTED, 1.0);
    assert_metric(&metrics, VIOLATED, 0.0);
    assert_metric(&metrics, FAILED, 0.0);
    // Shared with locally run jobs: C3's eviction, and its violation (evictions_violate: true).
    assert_metric(&metrics, "interstice_evictions_total", 1.0);
    assert_metric(&metrics, "interstice_slo_violations_total", 1.0);
    assert!(
        metric(&metrics, "interstice_lost_work_processor_seconds_total") >= 4.0,
        "C3 ran on 4 CPUs for at least a second before its eviction:\n{metrics}"
    );
    // C1, C2 were predicted met and met (tn); C3 was predicted met and violated (fn).
    assert_metric(&metrics, TN, 2.0);
    assert_metric(&metrics, FN, 1.0);
    assert_metric(&metrics, TP, 0.0);
    assert_metric(&metrics, FP, 0.0);
    assert_metric(&metrics, "interstice_slurm_unpredicted_admissions_total", 0.0);
    assert!(metric(&metrics, "interstice_slurm_plan_reads_total{result=\"ok\"}") >= 1.0);
    assert_metric(
        &metrics,
        "interstice_slurm_cluster_cpus{state=\"total\"}",
        f64::from(CLUSTER_CPUS),
    );
    cluster.wait_state(&h3, &["COMPLETED"], LONG);
}

/// Scenario 4: with the daemon stopped, submissions go through (fail-open)
/// within the latency bound and are counted; a new daemon learns the outcomes
/// from Slurm. Returns that daemon.
fn with_the_daemon_down_sbatch_fails_open(cluster: &Cluster) -> Daemon {
    let submitted = Instant::now();
    let c4 = cluster
        .sbatch(&["--slo=120", "-n", "1", "-t", "1", "--wrap", "sleep 1"])
        .expect("fail-open accepts");
    let sbatch_took = submitted.elapsed();
    assert!(
        sbatch_took < Duration::from_secs(3),
        "sbatch with the daemon down took {sbatch_took:?}"
    );
    let (partition, _, comment) = cluster.job(&c4).expect("C4 in squeue");
    assert_eq!(partition, "cloud");
    assert_eq!(comment, "interstice:unpredicted slo=120");
    assert!(
        cluster
            .slurmctld_log()
            .contains("accepted unpredicted (fail_mode open)"),
        "slurmctld counted it"
    );
    let unreachable = cluster.sbatch(&["-p", "hpc", "-n", "1", "-t", "1", "--wrap", "true"]);
    assert!(
        unreachable.is_ok(),
        "plain HPC jobs never depend on the daemon: {unreachable:?}"
    );
    cluster.wait_state(&c4, &["COMPLETED"], LONG);
    // A new daemon learns from Slurm (MinJobAge 600 keeps finished jobs listed): the
    // unpredicted admission and C4's outcome, and the outcomes of C1–C3 again.
    let daemon2 = Daemon::start(cluster, 2);
    wait_metric(&daemon2, MET, 3.0);
    let metrics = checked_scrape(&daemon2);
    assert_metric(&metrics, "interstice_slurm_unpredicted_admissions_total", 1.0);
    assert_metric(&metrics, EVICTED, 1.0);
    assert_metric(&metrics, "interstice_evictions_total", 1.0);
    assert_metric(&metrics, "interstice_slo_violations_total", 1.0);
    // C4 had no prediction: it is in no confusion cell.
    assert_metric(&metrics, TN, 2.0);
    assert_metric(&metrics, FN, 1.0);
    // This daemon decided nothing.
    assert_metric(&metrics, ADMITTED, 0.0);
    assert_metric(&metrics, REJECTED, 0.0);
    assert!(
        logged_outcome(&daemon2, &c4, "met"),
        "the third met job is C4 ({c4}):\n{}",
        daemon2.log_text()
    );
    assert!(metrics.contains("interstice_plan_age_seconds"), "{metrics}");

    daemon2
}

/// Scenario 6: slurmctld down. Once the plan is older than three read
/// intervals the daemon is not ready (503 on /healthz and predictions, so the
/// plugins' fail mode decides), and ready again once Slurm is back.
fn a_stale_plan_makes_the_daemon_unready(cluster: &mut Cluster, daemon: &Daemon) {
    cluster.stop_slurmctld();
    let stale = wait_for(
        "the daemon to report a stale plan",
        Duration::from_secs(20),
        || harness::http(&daemon.socket, "GET", "/healthz", None).err(),
    );
    assert!(
        matches!(&stale, HttpError::Status { status: 503, body } if body.contains("stale")),
        "{stale}"
    );
    let predict = harness::http(
        &daemon.socket,
        "POST",
        "/v1/predict",
        Some(r#"{"procs": 1, "walltime": 60, "slo": 600}"#),
    );
    assert!(
        matches!(predict, Err(HttpError::Status { status: 503, .. })),
        "{predict:?}"
    );
    cluster.restart_slurmctld(true);
    wait_for("the daemon to be ready again", Duration::from_secs(30), || {
        harness::http(&daemon.socket, "GET", "/healthz", None).ok()
    });
}
