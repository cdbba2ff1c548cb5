//! `interstice bench hpc`, `bench limit`, `bench scaling`, `bench measure` and `bench slurm` end to end, at
//! a size a debug build runs in seconds: the METRIC lines are there, numbers
//! where numbers are due, and a trace repeated twice replays twice its jobs.

use interstice_tests::{assert_success, interstice_bin, kth_trace, nasa_trace};
use std::collections::HashMap;
use std::process::Command;

/// Run `interstice ARGS` and return its METRIC lines as name → (value, unit),
/// checking that every line of stdout is one.
fn metrics(args: &[&str]) -> HashMap<String, (String, String)> {
    let output = Command::new(interstice_bin())
        .args(args)
        .output()
        .expect("run interstice");
    assert_success(&output);
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 stdout");
    let mut metrics = HashMap::new();
    for line in stdout.lines() {
        let fields: Vec<&str> = line.split(':').collect();
        assert!(
            fields.len() == 4 && fields[0] == "METRIC",
            "not a METRIC:name:value:unit line: {line:?}\n{stdout}"
        );
        let previous = metrics.insert(
            fields[1].to_string(),
            (fields[2].to_string(), fields[3].to_string()),
        );
        assert!(previous.is_none(), "{} printed twice:\n{stdout}", fields[1]);
    }
    metrics
}

/// The value of metric `name`, which must be a non-negative number in `unit`.
fn number(metrics: &HashMap<String, (String, String)>, name: &str, unit: &str) -> f64 {
    let (value, got_unit) = metrics
        .get(name)
        .unwrap_or_else(|| panic!("no METRIC:{name} among {:?}", sorted_names(metrics)));
    assert_eq!(got_unit, unit, "unit of {name}");
    let value: f64 = value
        .parse()
        .unwrap_or_else(|_| panic!("METRIC:{name} is {value:?}, not a number"));
    assert!(value.is_finite() && value >= 0.0, "METRIC:{name} is {value}");
    value
}

fn sorted_names(metrics: &HashMap<String, (String, String)>) -> Vec<&String> {
    let mut names: Vec<_> = metrics.keys().collect();
    names.sort();
    names
}

#[test]
fn bench_hpc_times_every_policy_on_the_generated_trace() {
    let metrics = metrics(&[
        "bench", "hpc", "--jobs", "2000", "--procs", "200", "--repeat", "1",
    ]);
    assert_eq!(number(&metrics, "hpc_jobs", "jobs"), 2000.0);
    assert_eq!(number(&metrics, "hpc_procs", "procs"), 200.0);
    for policy in ["easy", "fcfs", "conservative", "convergence"] {
        let wall = number(&metrics, &format!("hpc_{policy}_wall_seconds"), "s");
        let load = number(&metrics, &format!("hpc_{policy}_load_seconds"), "s");
        let rate = number(&metrics, &format!("hpc_{policy}_jobs_per_second"), "jobs/s");
        assert!(
            wall > 0.0 && load > 0.0 && load < wall,
            "{policy}: load {load} s of {wall} s"
        );
        // jobs/s is the 2,000 jobs over the wall time (both rounded when printed).
        assert!(
            (rate - 2000.0 / wall).abs() <= 0.01 * rate,
            "{policy}: {rate} jobs/s in {wall} s"
        );
        assert!(number(&metrics, &format!("hpc_{policy}_makespan"), "s") > 0.0);
    }
}

#[test]
fn bench_limit_starts_every_kth_job_when_the_reference_does() {
    let kth = kth_trace();
    let metrics = metrics(&[
        "bench",
        "limit",
        kth.to_str().expect("UTF-8 path"),
        "100",
        "--repeat",
        "1",
    ]);
    assert_eq!(number(&metrics, "limit_jobs", "jobs"), 28_467.0);
    assert_eq!(number(&metrics, "limit_procs", "procs"), 100.0);
    for policy in ["easy", "fcfs"] {
        let replay = number(&metrics, &format!("limit_replay_{policy}_seconds"), "s");
        let reference = number(&metrics, &format!("limit_reference_{policy}_seconds"), "s");
        assert!(
            replay > 0.0 && reference > 0.0,
            "{policy}: {replay} s, {reference} s"
        );
        number(&metrics, &format!("limit_ratio_{policy}"), "x");
        assert_eq!(
            number(&metrics, &format!("limit_start_differences_{policy}"), "jobs"),
            0.0,
            "{policy}: the replay starts every job when the count-based reference does"
        );
    }
    // Conservative has no reference: it is set against EASY's two.
    assert!(number(&metrics, "limit_replay_conservative_seconds", "s") > 0.0);
    number(&metrics, "limit_ratio_conservative_to_easy_reference", "x");
    number(&metrics, "limit_ratio_conservative_to_easy_replay", "x");
    assert!(!metrics.contains_key("limit_start_differences_conservative"));
}

#[test]
fn bench_limit_checks_a_generated_trace_and_names_a_bad_one() {
    let metrics = metrics(&[
        "bench",
        "limit",
        "--generate",
        "2000",
        "--generate-procs",
        "200",
        "--repeat",
        "1",
        "--policies",
        "easy",
    ]);
    assert_eq!(number(&metrics, "limit_jobs", "jobs"), 2000.0);
    assert_eq!(number(&metrics, "limit_procs", "procs"), 200.0);
    assert_eq!(number(&metrics, "limit_start_differences_easy", "jobs"), 0.0);
    let bench = |args: &[&str]| {
        Command::new(interstice_bin())
            .args(["bench", "limit"])
            .args(args)
            .output()
            .expect("run interstice")
    };
    interstice_tests::assert_failure_mentions(&bench(&["/nonexistent.swf", "100"]), &["/nonexistent.swf"]);
    // KTH's widest job has 100 processors: as `replay` without --clip, too wide is an error.
    let kth = kth_trace();
    interstice_tests::assert_failure_mentions(
        &bench(&[kth.to_str().expect("UTF-8 path"), "64", "--repeat", "1"]),
        &["KTH-SP2-1996-2.1-cln.swf.gz", "processors"],
    );
    interstice_tests::assert_failure_mentions(
        &bench(&["--generate", "10", "x.swf"]),
        &["cannot be used with"],
    );
}

/// `bench scaling` at 10 processors on the first day of the NASA trace,
/// once and twice over, with `extra` flags.
fn scaling_on_nasas_first_day(extra: &[&str]) -> HashMap<String, (String, String)> {
    let nasa = nasa_trace();
    let mut args = vec![
        "bench",
        "scaling",
        "--trace",
        nasa.to_str().expect("UTF-8 path"),
        "--until",
        "86400",
        "--procs",
        "10",
        "--repeats",
        "1,2",
    ];
    args.extend_from_slice(extra);
    metrics(&args)
}

#[test]
fn bench_scaling_replays_the_repeated_trace_in_child_processes() {
    let metrics = scaling_on_nasas_first_day(&["--policies", "easy"]);
    let baseline = number(&metrics, "scaling_baseline_peak_memory", "bytes");
    assert!(baseline > 0.0);
    let hpc = |repeat: u32| {
        number(
            &metrics,
            &format!("scaling_procs10_repeat{repeat}_hpc_jobs"),
            "jobs",
        )
    };
    let counted = |repeat: u32| number(&metrics, &format!("scaling_procs10_repeat{repeat}_jobs"), "jobs");
    assert!(hpc(1) > 100.0, "NASA's first day has about 190 jobs: {}", hpc(1));
    assert_eq!(hpc(2), 2.0 * hpc(1), "two copies of the trace");
    for repeat in [1, 2] {
        let cell = format!("scaling_easy_procs10_repeat{repeat}");
        let jobs = number(&metrics, &format!("{cell}_jobs"), "jobs");
        let wall = number(&metrics, &format!("{cell}_wall_seconds"), "s");
        let cpu = number(&metrics, &format!("{cell}_cpu_seconds"), "s");
        let peak = number(&metrics, &format!("{cell}_peak_memory"), "bytes");
        number(&metrics, &format!("{cell}_jobs_per_second"), "jobs/s");
        assert_eq!(
            jobs,
            counted(repeat),
            "{cell}: the child replayed what was counted"
        );
        // A cloud job every 10 s over the HPC jobs' span: many more than the HPC jobs.
        assert!(jobs > 10.0 * hpc(repeat), "{cell}: {jobs} jobs");
        assert!(wall > 0.0 && cpu > 0.0, "{cell}: {wall} s wall, {cpu} s CPU");
        assert!(
            peak > baseline,
            "{cell}: peak {peak} bytes, doing nothing {baseline}"
        );
    }
    // Twice the HPC jobs, and cloud jobs over twice the span plus a second:
    // twice as many, give or take one.
    let (one, two) = (
        number(&metrics, "scaling_easy_procs10_repeat1_jobs", "jobs"),
        number(&metrics, "scaling_easy_procs10_repeat2_jobs", "jobs"),
    );
    assert!(
        (two - 2.0 * one).abs() <= 1.0,
        "1 copy: {one} jobs, 2 copies: {two}"
    );
}

#[test]
fn bench_scaling_reports_a_run_past_its_timeout() {
    let metrics = scaling_on_nasas_first_day(&["--policies", "conservative", "--timeout", "0.001"]);
    for repeat in [1, 2] {
        let name = format!("scaling_conservative_procs10_repeat{repeat}_wall_seconds");
        assert_eq!(
            metrics.get(&name),
            Some(&("timeout".to_string(), "s".to_string())),
            "{name}"
        );
        let cell = format!("scaling_conservative_procs10_repeat{repeat}");
        assert!(
            !metrics.contains_key(&format!("{cell}_jobs")),
            "a killed run has no job count"
        );
    }
}

#[test]
fn bench_measure_times_a_command_and_fails_with_it() {
    let metrics = metrics(&["bench", "measure", "--", "swf", "--help"]);
    number(&metrics, "measure_wall_seconds", "s");
    number(&metrics, "measure_cpu_seconds", "s");
    assert!(number(&metrics, "measure_peak_memory", "bytes") > 0.0);
    let failed = Command::new(interstice_bin())
        .args(["bench", "measure", "--", "swf", "stats", "/nonexistent.swf"])
        .output()
        .expect("run interstice");
    interstice_tests::assert_failure_mentions(&failed, &["/nonexistent.swf", "failed"]);
}

#[test]
fn bench_slurm_reads_and_plans_a_generated_state() {
    let metrics = metrics(&[
        "bench", "slurm", "--nodes", "40", "--cpus", "8", "--jobs", "300", "--repeat", "2",
    ]);
    assert_eq!(number(&metrics, "slurm_nodes", "nodes"), 40.0);
    assert_eq!(number(&metrics, "slurm_processors", "processors"), 320.0);
    let jobs = number(&metrics, "slurm_jobs", "jobs");
    let parts: f64 = ["slurm_running_jobs", "slurm_planned_jobs", "slurm_unplanned_jobs"]
        .iter()
        .map(|name| number(&metrics, name, "jobs"))
        .sum();
    assert_eq!(
        (jobs, parts),
        (300.0, 300.0),
        "every job is running, planned or unplanned"
    );
    assert!(number(&metrics, "slurm_running_jobs", "jobs") > 0.0);
    assert!(number(&metrics, "slurm_unplanned_jobs", "jobs") > 0.0);
    let total = number(&metrics, "slurm_read_and_plan_seconds", "s");
    let steps: f64 = ["slurm_parse_seconds", "slurm_map_seconds", "slurm_mirror_seconds"]
        .iter()
        .map(|name| number(&metrics, name, "s"))
        .sum();
    assert!(
        (total - steps).abs() < 2e-4,
        "the total is its steps: {total} vs {steps}"
    );
    number(&metrics, "slurm_predict_seconds", "s");
    number(&metrics, "slurm_predicted_start_after_now", "s");
}
