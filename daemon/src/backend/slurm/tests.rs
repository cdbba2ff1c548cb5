//! Unit tests of the Slurm backend: the squeue parser, finished jobs'
//! outcomes and metrics, on captured Slurm output.

use super::read::COMMAND_TIMEOUT;
use super::*;
use crate::metrics::sample;
use interstice_api::slurm::Marker;
use std::path::PathBuf;

/// Captured from Slurm 22.05.8 (`SLURM_TIME_FORMAT=%s squeue -h -a -t all -o SQUEUE_FORMAT`),
/// the accepted markers with the plugin's `predicted_violation=` verdict.
const SQUEUE: &str = "\
7|hpc|PENDING|8|2:00|1795246200|1795246320|1795246440|Resources||vm|root|(null)
6|hpc|RUNNING|6|2:00|1795246195|1795246196|1795246316|None|vm|(null)|root|(null)
8|cloud|RUNNING|2|1:00|1795246201|1795246202|1795246262|None|vm|(null)|root|interstice:accepted slo=100 predicted_completion=1795246261 predicted_violation=0 hold=2305843009213693952
9|cloud|COMPLETED|2|1:00|1795246100|1795246101|1795246110|None|vm|(null)|root|interstice:accepted slo=100 predicted_violation=0 violation_probability=0.400 verdicts=010
10|cloud|PREEMPTED|4|2:00|1795246100|1795246101|1795246130|None|vm|(null)|root|user text interstice:accepted slo=300 predicted_violation=0
11|cloud|COMPLETED|1|1:00|1795246100|1795246150|1795246210|None|vm|(null)|root|interstice:unpredicted slo=120
12|cloud|DEADLINE|1|1:00|1795246100|N/A|1795246220|None||(null)|root|interstice:accepted slo=120 predicted_violation=0
13|hpc|CANCELLED by 0|1|UNLIMITED|1795246100|0|1795246101|None||(null)|root|a|b with | bars
14|hpc|PENDING|1|1:00|1795246100|N/A|N/A|JobHeldUser||(null)|root|(null)
";

/// A cluster's squeue prints more than a pipe holds (64 KiB): the read
/// must take it all, not wait for squeue to exit before reading and
/// kill it at the timeout.
#[test]
fn a_squeue_larger_than_a_pipe_is_read_whole() {
    let started = std::time::Instant::now();
    let lines = 5_000;
    let script = format!(
        "i=0; while [ $i -lt {lines} ]; do echo \"$i|cloud|RUNNING|2|3:00|1795246100|1795246100|1795246280|None|n1|(null)|alice|(null)\"; i=$((i+1)); done"
    );
    let printed = run_command(&PathBuf::from("/bin/sh"), &["-c", &script], None).expect("squeue is read");
    assert!(printed.len() > 64 << 10, "{} bytes", printed.len());
    assert_eq!(parse_squeue(&printed).unwrap().len(), lines);
    assert!(started.elapsed() < COMMAND_TIMEOUT, "{:?}", started.elapsed());
}

#[test]
fn squeue_lines_are_parsed() {
    let jobs = parse_squeue(SQUEUE).unwrap();
    assert_eq!(jobs.len(), 9);
    assert!(jobs[8].is_held() && !jobs[0].is_held());
    assert_eq!(
        jobs[2],
        SqueueJob {
            id: "8".into(),
            partition: "cloud".into(),
            state: JobStateName::Running,
            cpus: 2,
            time_limit_seconds: Some(60),
            submit: Some(1_795_246_201),
            start: Some(1_795_246_202),
            end: Some(1_795_246_262),
            reason: "None".into(),
            nodes: "vm".into(),
            sched_nodes: "(null)".into(),
            user: "root".into(),
            comment: "interstice:accepted slo=100 predicted_completion=1795246261 predicted_violation=0 \
                      hold=2305843009213693952"
                .into(),
            marker: Some(Marker {
                predicted: true,
                slo_seconds: 100.0,
                predicted_completion: Some(1_795_246_261.0),
                predicted_violation: Some(false),
                violation_probability: None,
                verdicts: None,
                hold: Some(1 << 61),
                class: None,
                evicted_for: None,
            }),
            memory_mb: None,
        }
    );
    assert_eq!(jobs[6].start, None);
    assert_eq!(jobs[7].state, JobStateName::Cancelled);
    assert_eq!(jobs[7].time_limit_seconds, None);
    assert_eq!(jobs[7].marker, None);
}

#[test]
fn malformed_squeue_line_names_the_line() {
    let error = parse_squeue("1|hpc|RUNNING|x|1:00|1|1|1|None|n1|||\n")
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("squeue line 1: CPUs is not a number"),
        "{error}"
    );
    assert!(parse_squeue("garbage\n")
        .unwrap_err()
        .to_string()
        .contains("expected 13 fields"));
}

#[test]
fn outcomes_follow_state_and_deadline() {
    let jobs = parse_squeue(SQUEUE).unwrap();
    let by_id = |id: &str| jobs.iter().find(|job| job.id == id).unwrap();
    let outcome = |id: &str, violate: bool| {
        finished(by_id(id), violate).map(|job| (job.outcome, job.slo_violated, job.predicted_violation))
    };
    assert_eq!(outcome("9", true), Some((Outcome::Met, Some(false), Some(false))));
    assert_eq!(
        outcome("10", true),
        Some((Outcome::Evicted, Some(true), Some(false)))
    );
    assert_eq!(outcome("10", false), Some((Outcome::Evicted, None, Some(false))));
    assert_eq!(
        finished(by_id("10"), true).unwrap().lost_processor_seconds(),
        4.0 * 29.0
    );
    assert_eq!(outcome("11", true), Some((Outcome::Met, Some(false), None)));
    assert_eq!(
        outcome("12", true),
        Some((Outcome::Violated, Some(true), Some(false)))
    );
    assert_eq!(outcome("13", true), None, "no marker: not a cloud job");
    assert_eq!(outcome("8", true), None, "still running");
    let mut late = by_id("9").clone();
    late.end = Some(1_795_246_201);
    assert_eq!(
        finished(&late, true).map(|job| (job.outcome, job.slo_violated)),
        Some((Outcome::Violated, Some(true)))
    );
    // Admitted although the engine predicted a violation (admission: admit-all).
    let mut admitted_late = by_id("9").clone();
    admitted_late.marker.as_mut().unwrap().predicted_violation = Some(true);
    assert_eq!(
        finished(&admitted_late, true).unwrap().predicted_violation,
        Some(true)
    );
    let mut cancelled = by_id("9").clone();
    cancelled.state = JobStateName::Cancelled;
    assert_eq!(
        finished(&cancelled, true).map(|job| (job.outcome, job.slo_violated)),
        Some((Outcome::Failed, None))
    );
    let mut timeout = late;
    timeout.state = JobStateName::Timeout;
    assert_eq!(
        finished(&timeout, true).map(|job| (job.outcome, job.slo_violated)),
        Some((Outcome::Failed, Some(true)))
    );
    // Without an end time there is no verdict (core judges an end), not "met".
    let mut no_end = by_id("9").clone();
    no_end.end = None;
    assert_eq!(
        finished(&no_end, true).map(|job| (job.outcome, job.slo_violated)),
        Some((Outcome::Met, None))
    );
}

#[test]
fn the_predicted_violation_is_the_engines_verdict_read_from_the_marker() {
    // Submitted at …100 with slo=100: the deadline is …200. Under admit-all the
    // engine predicted completion at …200.4, a violation; the marker rounds the
    // completion to …200 and carries the verdict.
    let line = |marker: &str| {
        let text = format!(
            "21|cloud|COMPLETED|1|1:00|1795246100|1795246101|1795246150|None|n1|(null)|root|{marker}\n"
        );
        let jobs = parse_squeue(&text).unwrap();
        let job = finished(&jobs[0], true).unwrap();
        (job.outcome, job.slo_violated, job.predicted_violation)
    };
    assert_eq!(
        line("interstice:accepted slo=100 predicted_completion=1795246200 predicted_violation=1"),
        (Outcome::Met, Some(false), Some(true)),
        "the engine said late: a false positive, whatever the rounded completion"
    );
    // The verdict decides, not the completion next to it.
    assert_eq!(
        line("interstice:accepted slo=100 predicted_completion=1795246300 predicted_violation=0"),
        (Outcome::Met, Some(false), Some(false))
    );
    // Written by a plugin older than the verdict: unknown, not re-derived.
    assert_eq!(
        line("interstice:accepted slo=100 predicted_completion=1795246300"),
        (Outcome::Met, Some(false), None)
    );
    assert_eq!(
        line("interstice:unpredicted slo=100 predicted_violation=1"),
        (Outcome::Met, Some(false), None),
        "a fail-open admission had no prediction"
    );
}

#[test]
fn a_job_the_daemon_cancelled_with_its_eviction_mark_was_evicted() {
    let jobs = parse_squeue(
        "40|cloud|CANCELLED by 0|2|1:00|1795246100|1795246110|1795246150|None|n1|(null)|bob|\
         interstice:accepted slo=100 class=bronze evicted_for=9\n\
         41|cloud|CANCELLED by 0|2|1:00|1795246100|1795246110|1795246150|None|n1|(null)|bob|\
         interstice:accepted slo=100 class=bronze\n",
    )
    .unwrap();
    assert_eq!(jobs[0].state, JobStateName::Preempted);
    assert_eq!(jobs[0].marker.as_ref().unwrap().evicted_for.as_deref(), Some("9"));
    assert_eq!(
        jobs[1].state,
        JobStateName::Cancelled,
        "a user's cancellation stays one"
    );
    let evicted = finished(&jobs[0], true).unwrap();
    assert_eq!(evicted.outcome, Outcome::Evicted);
    assert_eq!(evicted.lost_processor_seconds(), 80.0);
    let account = served(&evicted, 0).unwrap();
    assert_eq!(
        (account.ran, account.discarded),
        (Time::ZERO, Time::from_secs(40))
    );
    assert!(served(&finished(&jobs[1], true).unwrap(), 0).is_none());
}

#[test]
fn tracker_counts_each_job_once() {
    let jobs = parse_squeue(SQUEUE).unwrap();
    let mut tracker = OutcomeTracker::default();
    let first = tracker.observe(&jobs, true);
    assert_eq!(first.unpredicted, vec!["11".to_string()]);
    let ids: Vec<&str> = first.finished.iter().map(|job| job.id.as_str()).collect();
    assert_eq!(ids, ["9", "10", "11", "12"]);
    assert_eq!(tracker.observe(&jobs, true), Learned::default());
}

#[test]
fn outcomes_feed_the_daemon_metrics() {
    let daemon = Metrics::new();
    let slurm = SlurmMetrics::register(daemon.registry()).unwrap();
    assert!(
        SlurmMetrics::register(daemon.registry()).is_err(),
        "registered twice in one registry"
    );
    let learned = OutcomeTracker::default().observe(&parse_squeue(SQUEUE).unwrap(), true);
    record(&learned, &daemon, &slurm);
    let text = daemon.render();
    let value = |series: &str| sample(&text, series);
    assert_eq!(
        value("interstice_slurm_cloud_job_outcomes_total{outcome=\"met\"}"),
        2.0
    );
    assert_eq!(
        value("interstice_slurm_cloud_job_outcomes_total{outcome=\"evicted\"}"),
        1.0
    );
    assert_eq!(
        value("interstice_slurm_cloud_job_outcomes_total{outcome=\"violated\"}"),
        1.0
    );
    assert_eq!(
        value("interstice_slurm_cloud_job_outcomes_total{outcome=\"failed\"}"),
        0.0
    );
    assert_eq!(value("interstice_slurm_unpredicted_admissions_total"), 1.0);
    // Shared with locally run jobs: job 10 (evicted, violating) and job 12 (deadline).
    assert_eq!(value("interstice_evictions_total"), 1.0);
    assert_eq!(value("interstice_lost_work_processor_seconds_total"), 116.0);
    assert_eq!(value("interstice_slo_violations_total"), 2.0);
    // The denominator: every job with a verdict (9 met, 10, 11 met, 12).
    assert_eq!(value("interstice_cloud_jobs_finished_total"), 4.0);
    // Predicted met: 9 met (tn), 10 and 12 violated (fn); 11 was unpredicted.
    assert_eq!(value("interstice_prediction_outcomes_total{outcome=\"tn\"}"), 1.0);
    assert_eq!(value("interstice_prediction_outcomes_total{outcome=\"fn\"}"), 2.0);
    assert_eq!(value("interstice_prediction_outcomes_total{outcome=\"tp\"}"), 0.0);
    // Every predictor's verdict, where the marker carries them (job 9, met:
    // exact and learned said met, the thesis's F^σ a violation).
    let scored = |predictor: &str, outcome: &str| {
        value(&format!(
            "interstice_predictor_outcomes_total{{outcome=\"{outcome}\",predictor=\"{predictor}\"}}"
        ))
    };
    assert_eq!(scored("exact", "tn"), 1.0);
    assert_eq!(scored("thesis", "fp"), 1.0);
    assert_eq!(scored("learned", "tn"), 1.0);
    assert_eq!(
        scored("thesis", "tn") + scored("exact", "fn") + scored("learned", "fn"),
        0.0
    );
    assert_eq!(value("interstice_slurm_plan_reads_total{result=\"ok\"}"), 0.0);
}

#[test]
fn finished_jobs_are_counted_in_their_markers_class() {
    let mut daemon = Metrics::new();
    daemon
        .set_classes(crate::classes::ClassTable {
            classes: interstice_core::qos::ServiceClass::paper_classes(),
            default: None,
        })
        .unwrap();
    let slurm = SlurmMetrics::register(daemon.registry()).unwrap();
    // Gold waited 1 s and ran 59 (A = 0.983, missed its 100 %); bronze
    // ran 29 s and was preempted (A = 0); a marker without a class is in
    // none (no default); an unknown class is in none either.
    let text = "\
30|cloud|COMPLETED|2|1:00|1795246100|1795246101|1795246160|None|n1|(null)|root|interstice:accepted slo=100 class=gold
31|cloud|PREEMPTED|4|2:00|1795246100|1795246101|1795246130|None|n2|(null)|root|interstice:accepted slo=300 class=bronze
32|cloud|COMPLETED|1|1:00|1795246100|1795246101|1795246110|None|n1|(null)|root|interstice:accepted slo=100
33|cloud|COMPLETED|1|1:00|1795246100|1795246101|1795246110|None|n1|(null)|root|interstice:accepted slo=100 class=lead
34|cloud|DEADLINE|1|1:00|1795246100|1795246220|1795246220|None||(null)|root|interstice:accepted slo=120 class=silver
35|cloud|CANCELLED by 0|1|1:00|1795246100|1795246101|1795246110|None|n1|(null)|root|interstice:accepted slo=100 class=silver
";
    let learned = OutcomeTracker::default().observe(&parse_squeue(text).unwrap(), true);
    let bronze = learned.finished.iter().find(|job| job.id == "31").unwrap();
    let served = served(bronze, 2).unwrap();
    assert_eq!(
        (served.ran, served.discarded, served.waited),
        (Time::ZERO, Time::from_secs(29), Time::from_secs(1))
    );
    record(&learned, &daemon, &slurm);
    let text = daemon.render();
    let value = |series: &str| sample(&text, series);
    assert_eq!(
        value("interstice_class_cloud_jobs_finished_total{class=\"gold\"}"),
        1.0
    );
    assert_eq!(
        value("interstice_class_availability_slo_met_total{class=\"gold\"}"),
        0.0
    );
    assert!((value("interstice_class_availability_sum{class=\"gold\"}") - 59.0 / 60.0).abs() < 1e-9);
    assert_eq!(
        value("interstice_class_cloud_jobs_finished_total{class=\"bronze\"}"),
        1.0
    );
    assert_eq!(value("interstice_class_availability_sum{class=\"bronze\"}"), 0.0);
    // Bronze: deficit 0.5 over the 30 s it was in the system, on 4 CPUs,
    // bonus 100 %: 0.5 × 30 × 4 × 2 slot-seconds.
    assert!(
        (value("interstice_class_penalty_slot_seconds_total{class=\"bronze\"}") - 0.5 * 30.0 * 8.0).abs()
            < 1e-6
    );
    // Silver: the job Slurm cancelled at its deadline, never started
    // (A = 0, owed its 120 s in the system: 0.9 × 120 × 1 × 2
    // slot-seconds); the one its user cancelled is counted nowhere.
    assert_eq!(
        value("interstice_class_cloud_jobs_finished_total{class=\"silver\"}"),
        1.0
    );
    assert!((value("interstice_class_penalty_slot_seconds_total{class=\"silver\"}") - 216.0).abs() < 1e-6);
}
