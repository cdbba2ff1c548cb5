//! `interstice replay` end to end: a real trace (KTH SP2), with and without
//! injected cloud jobs (on the trace's first days, to stay fast in debug
//! builds), determinism, clipping, and clear errors on bad input.

use interstice_tests::{assert_failure_mentions, assert_success, kth_trace, scratch_dir};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const BATSIM_COLUMNS: &str = "job_id,workload_name,profile,submission_time,requested_number_of_resources,\
requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,\
stretch,allocated_resources,consumed_energy,metadata";
const INTERSTICE_COLUMNS: &str =
    "kind,slo,predicted_completion,predicted_violation,predicted_probability,violated,evictions,evicted_runs";

/// `interstice replay ARGS --force`: these tests write into one directory
/// several times (`a_non_empty_out_is_refused_without_force` checks the
/// refusal without it).
fn replay(args: &[&str]) -> Output {
    Command::new(interstice_tests::interstice_bin())
        .arg("replay")
        .args(args)
        .arg("--force")
        .output()
        .expect("run interstice")
}

fn summary(dir: &Path) -> Value {
    interstice_tests::read_summary(dir)
}

/// (header, rows split on commas).
fn jobs_csv(dir: &Path) -> (String, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(dir.join("jobs.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_string();
    let rows = lines
        .map(|line| line.split(',').map(str::to_string).collect())
        .collect();
    (header, rows)
}

fn count(value: &Value, key: &str) -> u64 {
    value[key]
        .as_u64()
        .unwrap_or_else(|| panic!("summary.{key} is not a count: {value:?}"))
}

#[test]
fn kth_replays_under_easy_with_batsim_formatted_output() {
    let out = scratch_dir("replay-cli", "easy");
    let output = replay(&[
        kth_trace().to_str().unwrap(),
        "--procs",
        "100",
        "--policy",
        "easy",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_success(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("policy easy"),
        "human summary on stdout:\n{stdout}"
    );

    let summary = summary(&out);
    let (header, rows) = jobs_csv(&out);
    assert_eq!(header, format!("{BATSIM_COLUMNS},{INTERSTICE_COLUMNS}"));
    assert!(
        count(&summary, "jobs") > 25_000,
        "KTH SP2 has about 28k jobs: {summary:?}"
    );
    assert_eq!(count(&summary, "jobs"), rows.len() as u64);
    assert_eq!(count(&summary, "cloud_jobs"), 0);
    assert_eq!(count(&summary, "hpc_jobs"), count(&summary, "jobs"));
    assert_eq!(summary["config"]["policy"].as_str(), Some("easy"));
    assert_eq!(summary["config"]["procs"].as_u64(), Some(100));
    let utilization = summary["utilization"].as_f64().unwrap();
    assert!(
        utilization > 0.3 && utilization <= 1.0,
        "utilization {utilization}"
    );
    for row in &rows {
        assert_eq!(row.len(), 25, "{row:?}");
        assert!(
            matches!(
                row[7].as_str(),
                "COMPLETED_SUCCESSFULLY" | "COMPLETED_WALLTIME_REACHED"
            ),
            "HPC job {} ended {}",
            row[0],
            row[7]
        );
        let submit: f64 = row[3].parse().unwrap();
        let start: f64 = row[8].parse().unwrap();
        let finish: f64 = row[10].parse().unwrap();
        assert!(start >= submit && finish >= start, "{row:?}");
        let allocated = row[14].split(' ').map(|part| {
            let (lo, hi) = part.split_once('-').unwrap_or((part, part));
            hi.parse::<u32>().unwrap() - lo.parse::<u32>().unwrap() + 1
        });
        assert_eq!(
            allocated.sum::<u32>().to_string(),
            row[4],
            "allocation width of job {}",
            row[0]
        );
        assert_eq!(row[17], "hpc");
    }
}

#[test]
fn kth_with_cloud_jobs_every_10s_is_consistent_and_deterministic() {
    let first = scratch_dir("replay-cli", "cloud-a");
    let second = scratch_dir("replay-cli", "cloud-b");
    let args = |out: &Path| {
        vec![
            kth_trace().to_str().unwrap().to_string(),
            "--procs".into(),
            "100".into(),
            "--conv".into(),
            "20".into(),
            "--policy".into(),
            "convergence".into(),
            "--cloud-interval".into(),
            "10".into(),
            "--cloud-procs".into(),
            "1,2,4".into(),
            "--cloud-runtime".into(),
            "0.2w".into(),
            "--slack".into(),
            "3".into(),
            "--until".into(),
            "259200".into(),
            "--admission".into(),
            "reject-predicted".into(),
            "--quiet".into(),
            "--out".into(),
            out.to_str().unwrap().to_string(),
        ]
    };
    for out in [&first, &second] {
        let args = args(out);
        let output = replay(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_success(&output);
        assert!(output.stdout.is_empty(), "--quiet prints nothing");
    }
    for name in ["jobs.csv", "summary.json"] {
        let a = std::fs::read(first.join(name)).unwrap();
        let b = std::fs::read(second.join(name)).unwrap();
        assert!(a == b, "{name} differs between two identical runs");
    }
    // --no-jobs-csv: the same summary, no rows, and no stale jobs.csv left behind.
    let summary_only = scratch_dir("replay-cli", "cloud-summary-only");
    std::fs::write(summary_only.join("jobs.csv"), "an earlier run's rows\n").unwrap();
    let mut only = args(&summary_only);
    only.push("--no-jobs-csv".into());
    assert_success(&replay(&only.iter().map(String::as_str).collect::<Vec<_>>()));
    assert!(
        !summary_only.join("jobs.csv").exists(),
        "the stale jobs.csv is removed"
    );
    assert_eq!(
        std::fs::read(summary_only.join("summary.json")).unwrap(),
        std::fs::read(first.join("summary.json")).unwrap(),
        "the summary does not depend on writing the rows"
    );

    the_run_is_consistent(&first);
}

/// The tables of the KTH run with a cloud job every 10 s in `dir`: the
/// counts of `summary.json` are the rows of `jobs.csv` (jobs, violations,
/// rejections, evictions, the confusion matrix of the admitted), the
/// settings are recorded, and cloud jobs ran in the 20-processor area only.
fn the_run_is_consistent(dir: &Path) {
    let summary = summary(dir);
    let (header, rows) = jobs_csv(dir);
    assert_eq!(header, format!("{BATSIM_COLUMNS},{INTERSTICE_COLUMNS}"));
    let (jobs, hpc, cloud) = (
        count(&summary, "jobs"),
        count(&summary, "hpc_jobs"),
        count(&summary, "cloud_jobs"),
    );
    assert_eq!(jobs, hpc + cloud);
    assert_eq!(jobs, rows.len() as u64);
    // The first three days of KTH, a cloud job every 10 s over the HPC jobs' span.
    assert!(cloud > 20_000 && cloud <= 259_200 / 10 + 1, "cloud jobs {cloud}");
    assert!(hpc > 100, "HPC jobs {hpc}");
    let violations = count(&summary, "violations");
    assert!(violations <= cloud);
    let violated_rows = rows
        .iter()
        .filter(|row| row[17] == "cloud" && row[22] == "1")
        .count() as u64;
    assert_eq!(violated_rows, violations);
    let rejected_rows = rows.iter().filter(|row| row[7] == "REJECTED").count() as u64;
    assert_eq!(rejected_rows, count(&summary, "rejected"));
    assert!(
        rejected_rows > 0,
        "an overloaded 20-processor area rejects some cloud jobs"
    );
    assert!(rows
        .iter()
        .filter(|row| row[7] == "REJECTED")
        .all(|row| row[17] == "cloud" && row[8].is_empty()));
    let evicted_rows: u64 = rows.iter().map(|row| row[23].parse::<u64>().unwrap()).sum();
    assert_eq!(evicted_rows, count(&summary, "evictions"));
    let percent = summary["violation_percent"].as_f64().unwrap();
    assert!((percent - violations as f64 * 100.0 / cloud as f64).abs() < 1e-9);
    let prediction = &summary["prediction"];
    let matrix: u64 = ["tp", "fp", "fn", "tn"]
        .iter()
        .map(|key| prediction[key].as_u64().unwrap())
        .sum();
    assert_eq!(
        matrix + count(&summary, "rejected"),
        cloud,
        "every admitted cloud job is in the confusion matrix"
    );
    assert_eq!(summary["config"]["conv"].as_u64(), Some(20));
    assert_eq!(summary["config"]["admission"].as_str(), Some("reject-predicted"));
    assert_eq!(summary["run"]["cloud"]["runtime"].as_str(), Some("0.2w"));
    // Cloud jobs run in the area only.
    for row in rows
        .iter()
        .filter(|row| row[17] == "cloud" && !row[14].is_empty())
    {
        for part in row[14].split(' ') {
            let hi = part.split_once('-').map_or(part, |(_, hi)| hi);
            assert!(
                hi.parse::<u32>().unwrap() < 20,
                "cloud job {} outside the area: {}",
                row[0],
                row[14]
            );
        }
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    let out = scratch_dir("replay-cli", "errors");
    let out = out.to_str().unwrap();
    let kth = kth_trace();
    let kth = kth.to_str().unwrap();

    let missing = replay(&["/nonexistent/trace.swf", "--policy", "easy", "--out", out]);
    assert_failure_mentions(&missing, &["cannot open /nonexistent/trace.swf"]);
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(
        stderr.matches("No such file or directory").count(),
        1,
        "the cause is printed once:\n{stderr}"
    );

    let no_policy = replay(&[kth, "--procs", "100", "--out", out]);
    assert_failure_mentions(&no_policy, &["--policy is required"]);

    let bad_policy = replay(&[kth, "--procs", "100", "--policy", "fastest", "--out", out]);
    assert_failure_mentions(&bad_policy, &["fastest", "conservative"]);

    let conv_too_big = replay(&[
        kth, "--procs", "100", "--conv", "200", "--policy", "easy", "--out", out,
    ]);
    assert_failure_mentions(&conv_too_big, &["--conv 200", "--procs 100"]);

    let too_small = replay(&[kth, "--procs", "10", "--policy", "easy", "--out", out]);
    assert!(
        !too_small.status.success(),
        "jobs wider than the machine need --clip"
    );
    assert!(!String::from_utf8_lossy(&too_small.stderr).contains("panicked"));

    let bad_runtime = replay(&[
        kth,
        "--policy",
        "easy",
        "--cloud-interval",
        "10",
        "--cloud-runtime",
        "soon",
        "--out",
        out,
    ]);
    assert_failure_mentions(&bad_runtime, &["soon"]);

    let wide_cloud = replay(&[
        kth,
        "--procs",
        "100",
        "--conv",
        "2",
        "--policy",
        "convergence",
        "--cloud-interval",
        "10",
        "--cloud-procs",
        "4",
        "--clip",
        "--out",
        out,
    ]);
    assert_failure_mentions(&wide_cloud, &["--cloud-procs", "convergence area has 2"]);
}

/// The thesis's options reach the engine and are echoed in summary.json;
/// α shortens the injected walltimes but not the SLOs; a maintenance window
/// off the platform is an error naming the file's line.
#[test]
fn thesis_options_and_alpha_reach_the_run_and_its_summary() {
    let out = scratch_dir("replay-cli", "thesis");
    let maintenance = out.join("maintenance.txt");
    // KTH's clock: its first day starts near t = 600000 s.
    std::fs::write(&maintenance, "# start duration procs\n600000 3600 0-9\n").unwrap();
    let kth = kth_trace();
    let args = |out: &Path, maintenance: &Path| {
        replay(&[
            kth.to_str().unwrap(),
            "--procs",
            "100",
            "--conv",
            "20",
            "--until",
            "86400",
            "--clip",
            "--policy",
            "conservative",
            "--scheduling",
            "shared-queue",
            "--predictor",
            "thesis",
            "--latency",
            "5",
            "--beta",
            "disqualify",
            "--maintenance",
            maintenance.to_str().unwrap(),
            "--cloud-interval",
            "60",
            "--alpha",
            "0.5",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let run = out.join("run");
    assert_success(&args(&run, &maintenance));
    let summary = summary(&run);
    let config = &summary["config"];
    assert_eq!(config["scheduling"], "shared-queue");
    assert_eq!(config["predictor"], "thesis");
    assert_eq!(config["latency"], 5.0);
    assert_eq!(config["beta"], "disqualify");
    assert_eq!(
        config["maintenance"],
        serde_json::json!([{"start": 600000.0, "duration": 3600.0, "procs": "0-9"}])
    );
    assert_eq!(summary["run"]["cloud"]["alpha"], 0.5);
    let (header, rows) = jobs_csv(&run);
    let column = |name: &str| header.split(',').position(|c| c == name).unwrap();
    let cloud: Vec<&Vec<String>> = rows.iter().filter(|row| row[column("kind")] == "cloud").collect();
    assert!(!cloud.is_empty());
    for row in cloud {
        assert_eq!(
            row[column("requested_time")],
            "90.000000",
            "0.5 × the 180 s requested"
        );
        assert_eq!(row[column("slo")], "360.000000", "slack 2 × the 180 s requested");
    }

    std::fs::write(&maintenance, "600000 3600 95-100\n").unwrap();
    assert_failure_mentions(
        &args(&out.join("bad"), &maintenance),
        &[
            &format!("{}:1", maintenance.display()),
            "processor 100 does not exist: the platform has processors 0-99",
        ],
    );
    std::fs::write(&maintenance, "\n600000 3600\n").unwrap();
    assert_failure_mentions(
        &args(&out.join("bad"), &maintenance),
        &[
            "--maintenance",
            &format!("{}:2", maintenance.display()),
            "start duration procs",
        ],
    );
}

#[test]
fn clip_lets_a_small_machine_replay_a_wide_trace() {
    let out = scratch_dir("replay-cli", "clip");
    let output = replay(&[
        kth_trace().to_str().unwrap(),
        "--procs",
        "10",
        "--until",
        "259200",
        "--clip=machine",
        "--policy",
        "fcfs",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_success(&output);
    let (_, rows) = jobs_csv(&out);
    assert!(rows.iter().all(|row| row[4].parse::<u32>().unwrap() <= 10));
    assert!(summary(&out)["run"]["extraction"]["clipped"].as_u64().unwrap() > 0);
}

/// A ratio over nothing is undefined: `null` in summary.json and sweep.json,
/// empty in sweep.csv, `n/a` on the terminal; never a made-up 0 (before:
/// "thesis accuracy 0.000" with no predicted violation, and
/// `violation_percent: 0` without a single cloud job).
#[test]
fn undefined_ratios_are_null_not_zero() {
    let kth = kth_trace();
    let kth = kth.to_str().unwrap();
    let dir = scratch_dir("replay_cli", "undefined_ratios");
    let hpc_only = dir.join("hpc");
    let output = replay(&[
        kth,
        "--procs",
        "100",
        "--policy",
        "easy",
        "--until",
        "86400",
        "--out",
        hpc_only.to_str().unwrap(),
    ]);
    assert_success(&output);
    let s = summary(&hpc_only);
    assert_eq!(s["cloud_jobs"], 0);
    assert!(s["violation_percent"].is_null(), "{s}");
    for ratio in [
        "precision",
        "recall",
        "accuracy",
        "f1",
        "thesis_accuracy",
        "thesis_precision",
    ] {
        assert!(s["prediction"][ratio].is_null(), "{ratio}: {s}");
    }
    assert!(s["utilization"].as_f64().is_some_and(|u| u > 0.0), "{s}");

    // Generous SLOs: cloud jobs, none predicted to violate, none violating.
    let relaxed = dir.join("relaxed");
    let output = replay(&[
        kth,
        "--procs",
        "100",
        "--policy",
        "easy",
        "--until",
        "86400",
        "--cloud-interval",
        "600",
        "--slack",
        "100",
        "--out",
        relaxed.to_str().unwrap(),
    ]);
    assert_success(&output);
    let s = summary(&relaxed);
    let q = &s["prediction"];
    assert_eq!(
        (q["tp"].as_u64(), q["fp"].as_u64(), q["fn"].as_u64()),
        (Some(0), Some(0), Some(0)),
        "{s}"
    );
    assert!(q["tn"].as_u64().is_some_and(|tn| tn > 0), "{s}");
    assert_eq!(s["violation_percent"], 0.0);
    assert_eq!(q["accuracy"], 1.0);
    for ratio in ["precision", "recall", "f1", "thesis_accuracy", "thesis_precision"] {
        assert!(q[ratio].is_null(), "{ratio}: {s}");
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("thesis accuracy n/a, precision n/a"), "{stdout}");

    let swept = dir.join("sweep");
    let output = Command::new(interstice_tests::interstice_bin())
        .args([
            "sweep",
            kth,
            "--procs",
            "100",
            "--policy",
            "easy",
            "--until",
            "86400",
            "--cloud-interval",
            "600",
        ])
        .args(["--slack", "100", "--quiet", "--out", swept.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&output);
    let csv = std::fs::read_to_string(swept.join("sweep.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let cell = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(
        (cell("precision"), cell("thesis_accuracy"), cell("accuracy")),
        ("", "", "1"),
        "{csv}"
    );
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(swept.join("sweep.json")).unwrap()).unwrap();
    let run = &json["runs"][0];
    assert!(
        run["precision"].is_null() && run["thesis_accuracy"].is_null(),
        "{run}"
    );
}

/// `--clip=machine` clips to the machine size the trace's header gives when
/// `--procs` is not given (before: the loader rejected the job and advised
/// `--clip 4`, which replay does not accept).
#[test]
fn clip_machine_uses_the_header_size_and_errors_advise_replay_options() {
    let dir = scratch_dir("replay_cli", "clip_machine");
    let trace = dir.join("wide.swf");
    std::fs::write(
        &trace,
        "; MaxProcs: 4\n\
         1 0 0 100 8 -1 -1 8 100 -1 1 1 1 1 1 -1 -1 -1\n\
         2 10 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n",
    )
    .unwrap();
    let out = dir.join("out");
    let trace = trace.to_str().unwrap();
    let output = replay(&[
        trace,
        "--policy",
        "easy",
        "--clip=machine",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_success(&output);
    let (header, rows) = jobs_csv(&out);
    let width = header
        .split(',')
        .position(|c| c == "requested_number_of_resources")
        .unwrap();
    let widths: Vec<&str> = rows.iter().map(|row| row[width].as_str()).collect();
    assert_eq!(widths, ["4", "2"]);
    assert_eq!(summary(&out)["run"]["extraction"]["clipped"], 1);

    let refused = replay(&[trace, "--policy", "easy", "--out", out.to_str().unwrap()]);
    assert_failure_mentions(
        &refused,
        &["wide.swf:2", "job 1 needs 8 processors", "--clip=machine"],
    );
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!stderr.contains("--clip 4"), "{stderr}");
}

/// The header is a comment: free text in a numeric key (CTC's `MaxNodes:
/// 338 (batch partition; 512 total)`, `MaxRuntime: N/A`) does not stop a
/// replay. The leading number is read, a value without one is left unset,
/// each with a note on stderr, and the machine size comes from the first
/// usable of MaxProcs and MaxNodes.
#[test]
fn a_header_with_free_text_replays_on_its_leading_number() {
    let dir = scratch_dir("replay_cli", "free_text_header");
    let trace = dir.join("ctc-like.swf");
    std::fs::write(
        &trace,
        "; Version: 2.2\n\
         ; MaxJobs: 122,055\n\
         ; MaxRuntime: N/A\n\
         ; MaxNodes: 338 (batch partition; 512 total)\n\
         ; MaxProcs: N/A\n\
         1 0 0 100 300 -1 -1 300 100 -1 1 1 1 1 1 -1 -1 -1\n\
         2 10 0 100 38 -1 -1 38 100 -1 1 1 1 1 1 -1 -1 -1\n",
    )
    .unwrap();
    let out = dir.join("out");
    let trace = trace.to_str().unwrap();
    let output = replay(&[trace, "--policy", "easy", "--out", out.to_str().unwrap()]);
    assert_success(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("on 338 processors"), "{stdout}");
    assert_eq!(summary(&out)["config"]["procs"].as_u64(), Some(338));
    let stderr = String::from_utf8_lossy(&output.stderr);
    for note in [
        "ctc-like.swf:3: header MaxRuntime: \"N/A\" is not a whole number ≥ 0, so MaxRuntime is left unset",
        "ctc-like.swf:4: header MaxNodes: \"338 (batch partition; 512 total)\" read as 338, the rest ignored",
        "ctc-like.swf:5: header MaxProcs: \"N/A\" is not a whole number ≥ 0, so MaxProcs is left unset",
    ] {
        assert!(stderr.contains(note), "stderr lacks {note:?}:\n{stderr}");
    }
    // Only the header is lenient: a malformed data line is still an error.
    let bad = dir.join("bad-data.swf");
    let text = std::fs::read_to_string(trace).unwrap() + "3 20 0 abc 1 -1 -1 1 100 -1 1 1 1 1 1 -1 -1 -1\n";
    std::fs::write(&bad, text).unwrap();
    let refused = replay(&[
        bad.to_str().unwrap(),
        "--policy",
        "easy",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_failure_mentions(&refused, &["bad-data.swf:8", "field 4 (run time)", "\"abc\""]);
}

/// `--out` refuses a non-empty directory unless `--force`, before any work
/// (`replay`, `replay --datacenter`, `sweep` and `batsim` share the check; a
/// sweep resumes only a directory holding its own cells, so a directory of
/// other files is refused the same way).
#[test]
fn a_non_empty_out_is_refused_without_force() {
    let dir = scratch_dir("replay-cli", "force");
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let rules = interstice_tests::repo_root().join("swf/tests/fixtures/rules.swf");
    let (rules, out_arg) = (rules.to_str().unwrap(), out.to_str().unwrap());
    let args = ["--procs", "16", "--policy", "easy", "--quiet", "--out", out_arg];
    let run = |args: &[&str]| {
        Command::new(interstice_tests::interstice_bin())
            .args(args)
            .output()
            .unwrap()
    };
    let mut replay_args = vec!["replay", rules];
    replay_args.extend(args);
    let refused = run(&replay_args);
    assert_failure_mentions(&refused, &["not empty", "--force"]);
    assert!(!out.join("summary.json").exists(), "nothing written");
    let mut sweep_args = vec!["sweep", rules, "--cloud-interval", "10"];
    sweep_args.extend(args);
    assert_failure_mentions(&run(&sweep_args), &["not empty", "--force"]);
    replay_args.push("--force");
    assert_success(&run(&replay_args));
    assert!(out.join("summary.json").exists(), "--force writes");
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
}

/// `--placement topsis` (docs/placement.md) changes where cloud jobs run and
/// nothing of the HPC work (hpc-first plans HPC work without cloud work), is
/// echoed in summary.json with its weights, and refuses weights it cannot
/// read and runs where no processor is chosen (`--eviction`).
#[test]
fn topsis_placement_moves_cloud_jobs_only() {
    let kth = kth_trace();
    let dir = scratch_dir("replay-cli", "placement");
    let run = |placement: &str, extra: &[&str]| {
        let out = dir.join(placement);
        let mut args = vec![
            kth.to_str().unwrap(),
            "--procs",
            "100",
            "--conv",
            "40",
            "--until",
            "259200",
            "--policy",
            "conservative",
            "--cloud-interval",
            "300",
            "--placement",
            placement,
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        (replay(&args), out)
    };
    let (output, first_fit) = run("first-fit", &[]);
    assert_success(&output);
    let (output, topsis) = run("topsis", &[]);
    assert_success(&output);

    assert_eq!(summary(&first_fit)["config"]["placement"], "first-fit");
    assert!(summary(&first_fit)["config"]["placement_weights"].is_null());
    let config = &summary(&topsis)["config"];
    assert_eq!(config["placement"], "topsis");
    let weights = config["placement_weights"]
        .as_object()
        .expect("weights by criterion");
    let total: f64 = weights.values().map(|w| w.as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-9, "{weights:?}");
    assert!(
        weights["margin"].as_f64().unwrap() > 0.5,
        "the AHP default favours the margin"
    );

    let (header, a) = jobs_csv(&first_fit);
    let (_, b) = jobs_csv(&topsis);
    let kind = header.split(',').position(|c| c == "kind").unwrap();
    let alloc = header
        .split(',')
        .position(|c| c == "allocated_resources")
        .unwrap();
    let hpc = |rows: &[Vec<String>]| {
        rows.iter()
            .filter(|r| r[kind] == "hpc")
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(hpc(&a), hpc(&b), "cloud placement changed HPC work");
    let moved = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x[kind] == "cloud" && x[alloc] != y[alloc])
        .count();
    assert!(moved > 0, "TOPSIS placed every cloud job where first fit did");

    let (output, _) = run("topsis", &["--placement-weights", "risk=1"]);
    assert_failure_mentions(&output, &["--placement-weights", "risk"]);
    let (output, _) = run("first-fit", &["--placement-weights", "margin=1"]);
    assert_failure_mentions(
        &output,
        &["placement weights are given but the placement is first-fit"],
    );
    let (output, _) = run("topsis", &["--eviction", "priority"]);
    assert_failure_mentions(&output, &["--placement", "one host"]);
}

/// Options that do not go together are a usage error (exit 2) naming the
/// fix: a bounded reservation depth with a policy that re-plans nothing,
/// `cars` outside the one queue. `cars` in the one queue replays.
#[test]
fn cars_and_the_reservation_depth_refuse_what_does_not_apply() {
    let trace = kth_trace();
    let out = scratch_dir("replay-cli", "cars");
    let out_arg = out.to_str().unwrap();
    for (flags, needle) in [
        (
            &["--policy", "easy", "--reservation-depth", "5"][..],
            "reservation depth 5 applies to conservative",
        ),
        (&["--policy", "cars"][..], "add --scheduling shared-queue"),
    ] {
        let mut args = vec![
            trace.to_str().unwrap(),
            "--procs",
            "100",
            "--until",
            "86400",
            "--out",
            out_arg,
        ];
        args.extend_from_slice(flags);
        let output = replay(&args);
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
        assert_failure_mentions(&output, &[needle]);
    }
    let output = replay(&[
        trace.to_str().unwrap(),
        "--procs",
        "100",
        "--until",
        "86400",
        "--policy",
        "cars",
        "--scheduling",
        "shared-queue",
        "--reservation-depth",
        "50",
        "--cloud-interval",
        "60",
        "--out",
        out_arg,
    ]);
    assert_success(&output);
    let config = &summary(&out)["config"];
    assert_eq!(
        (config["policy"].as_str(), config["reservation_depth"].as_u64()),
        (Some("cars"), Some(50))
    );
}

/// The mean of `column` over the rows of `kind` that have a value.
fn mean_of(dir: &Path, column: &str, kind: &str) -> f64 {
    let (header, rows) = jobs_csv(dir);
    let names: Vec<&str> = header.split(',').collect();
    let at = |name: &str| names.iter().position(|n| *n == name).unwrap();
    let values: Vec<f64> = rows
        .iter()
        .filter(|row| row[at("kind")] == kind)
        .filter_map(|row| row[at(column)].parse().ok())
        .collect();
    values.iter().sum::<f64>() / values.len() as f64
}

/// summary.json and the printed summary split the HPC jobs from the cloud
/// jobs: the HPC jobs' own wait (jobs.csv's HPC rows), the same run without
/// its cloud jobs beside it (the same HPC numbers under hpc-first, longer
/// waits under the thesis's one queue), and the violation rate over the
/// jobs submitted and over the jobs admitted, named as such.
#[test]
fn the_summary_splits_hpc_and_cloud_jobs_and_compares_with_no_cloud_jobs() {
    let dir = scratch_dir("replay_cli", "hpc-and-cloud");
    let trace = kth_trace();
    let trace = trace.to_str().unwrap();
    let machine = [trace, "--procs", "100", "--until", "3d"];
    let stream = [
        "--cloud-interval",
        "30",
        "--cloud-procs",
        "1,2,4",
        "--cloud-walltime",
        "180",
        "--cloud-runtime",
        "uniform:18:90",
        "--slack",
        "2",
    ];
    let runs: [(&str, &[&str]); 2] = [
        (
            "hpc-first",
            &["--policy", "easy", "--admission", "reject-predicted"],
        ),
        (
            "one-queue",
            &["--policy", "conservative", "--scheduling", "shared-queue"],
        ),
    ];
    for (name, policy) in runs {
        let out = dir.join(name);
        let alone = dir.join(format!("{name}-alone"));
        let with = [&machine[..], &stream, policy, &["--out", out.to_str().unwrap()]].concat();
        let output = replay(&with);
        assert_success(&output);
        assert_success(&replay(
            &[&machine[..], policy, &["--out", alone.to_str().unwrap()]].concat(),
        ));
        let (s, base) = (summary(&out), summary(&alone));
        let (hpc, cloud) = (&s["hpc"], &s["cloud"]);
        let close = |a: &Value, b: f64| (a.as_f64().unwrap() - b).abs() < 1e-6 * b.abs().max(1.0);
        assert!(
            close(&hpc["mean_wait"], mean_of(&out, "waiting_time", "hpc")),
            "{name}: {hpc}"
        );
        assert_eq!(hpc["jobs"], s["hpc_jobs"]);
        for metric in ["makespan", "mean_wait", "mean_bounded_slowdown"] {
            assert_eq!(
                hpc["without_cloud"][metric], base["hpc"][metric],
                "{name}: {metric}"
            );
            let change = hpc[metric].as_f64().unwrap() - base["hpc"][metric].as_f64().unwrap();
            assert!(close(&hpc["change"][metric], change), "{name}: {metric}");
        }
        assert_eq!(
            base["hpc"]["without_cloud"],
            Value::Null,
            "no cloud job, nothing to compare"
        );
        let submitted = count(cloud, "jobs");
        let admitted = count(cloud, "admitted");
        assert_eq!(submitted - admitted, count(cloud, "rejected"));
        let violations = count(cloud, "violations") as f64;
        assert!(close(
            &cloud["violation_percent_of_admitted"],
            violations * 100.0 / admitted as f64
        ));
        assert_eq!(cloud["violation_percent_of_submitted"], s["violation_percent"]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("HPC jobs: makespan") && stdout.contains("% of admitted"),
            "{stdout}"
        );
        if name == "hpc-first" {
            assert_eq!(
                hpc["change"]["mean_wait"], 0.0,
                "HPC work never waits for cloud jobs"
            );
            assert!(stdout.contains("(the same without the cloud jobs)"), "{stdout}");
            assert!(
                count(cloud, "rejected") > 0,
                "reject-predicted refuses some: {cloud}"
            );
        } else {
            // One queue: cloud jobs change the HPC jobs' schedule (for better
            // or worse: conservative backfilling reorders the queue).
            assert_ne!(hpc["change"]["mean_wait"], 0.0, "one queue: {hpc}");
            assert!(stdout.contains("(without the cloud jobs: "), "{stdout}");
        }
    }
}
